import { Select, Stack, Textarea } from '@mantine/core';
import { COMMON_NOTES } from './presets.js';

/** The moderator's optional note, recorded with the decision (dismiss, delete, ban) it goes with; a common one can be picked. */
export function DecisionNote({ value, onChange }: { value: string; onChange: (note: string) => void }) {
  return (
    <Stack gap={4}>
      <Select
        label="Common reason"
        placeholder="Pick a ready-made note"
        data={[...COMMON_NOTES]}
        value={COMMON_NOTES.includes(value) ? value : null}
        onChange={(picked) => onChange(picked ?? '')}
        clearable
        w={260}
      />
      <Textarea
        label="Note (optional)"
        description="Kept with the decision"
        value={value}
        onChange={(event) => onChange(event.currentTarget.value)}
        autosize
        minRows={1}
        maxRows={4}
      />
    </Stack>
  );
}
