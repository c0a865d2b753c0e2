import { Select } from '@mantine/core';

const PERMANENT = 'permanent';

/** The lengths a mute or ban can have, in minutes, and permanent. */
export const DURATIONS: Array<{ value: string; label: string }> = [
  { value: '10', label: '10 minutes' },
  { value: '60', label: '1 hour' },
  { value: '1440', label: '1 day' },
  { value: '10080', label: '1 week' },
  { value: PERMANENT, label: 'Permanent' },
];

export interface DurationProps {
  /** Minutes, or undefined for permanent. */
  value: number | undefined;
  onChange: (minutes: number | undefined) => void;
  label?: string;
  disabled?: boolean;
}

/** A duration select (10 minutes, 1 hour, 1 day, 1 week, permanent) answering minutes or undefined. */
export function Duration({ value, onChange, label = 'Duration', disabled }: DurationProps) {
  return (
    <Select
      label={label}
      data={DURATIONS}
      value={value === undefined ? PERMANENT : String(value)}
      onChange={(next) => onChange(next === null || next === PERMANENT ? undefined : Number(next))}
      allowDeselect={false}
      disabled={disabled}
      w={160}
    />
  );
}

/** A duration in words: "1 hour", "45 minutes", "permanent". */
export function durationLabel(minutes: number | null | undefined): string {
  if (minutes === null || minutes === undefined) return 'permanent';
  const known = DURATIONS.find((item) => item.value === String(minutes));
  if (known) return known.label;
  return minutes % 1440 === 0 ? `${minutes / 1440} days` : minutes % 60 === 0 ? `${minutes / 60} hours` : `${minutes} minutes`;
}
