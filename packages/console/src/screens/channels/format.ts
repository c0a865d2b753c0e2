/** Display helpers shared by the channel, rule and app screens. */

/** A timestamp (ISO text or ms) in the reader's locale; '—' for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

/** Bytes in words: "812 B", "3.4 MB". */
export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Minutes (undefined: as long as the server allows) as the milliseconds a mutePeriod takes. */
export const MAX_MUTE_MS = 10 * 365 * 24 * 3600 * 1000;
export function mutePeriodOf(minutes: number | undefined): number {
  return minutes === undefined ? MAX_MUTE_MS : minutes * 60_000;
}
