import { Textarea } from '@mantine/core';

/** The moderator's optional note, recorded with the decision (dismiss, delete, ban) it goes with. */
export function DecisionNote({ value, onChange }: { value: string; onChange: (note: string) => void }) {
  return (
    <Textarea
      label="Note (optional)"
      description="Kept with the decision"
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      autosize
      minRows={1}
      maxRows={4}
    />
  );
}
