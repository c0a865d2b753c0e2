import { List, Text } from '@mantine/core';
import type { FlagEntry } from '../../api/types.js';
import { formatTime } from '../../components/time.js';

/** Who flagged, when, and why. */
export function FlagList({ flags, label }: { flags: FlagEntry[]; label: string }) {
  if (flags.length === 0) return null;
  return (
    <List size="sm" spacing={4} aria-label={label}>
      {flags.map((flag) => (
        <List.Item key={`${flag.userId}:${flag.createdAt}`}>
          <Text span size="sm" fw={600}>
            {flag.displayName || flag.userId}
          </Text>{' '}
          <Text span size="xs" c="dimmed">
            {formatTime(flag.createdAt)}
          </Text>
          {': '}
          <Text span size="sm" fs={flag.reason ? undefined : 'italic'}>
            {flag.reason ?? 'no reason given'}
          </Text>
        </List.Item>
      ))}
    </List>
  );
}
