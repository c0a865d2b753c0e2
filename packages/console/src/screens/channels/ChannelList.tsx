import { Button, Group, Paper, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { type Column, PagedTable, useKeysetPages } from '../../components/PagedTable.js';
import type { ChannelRow } from '../../api/types.js';
import { type ChannelFilters, channelListPages } from './api.js';
import { when } from './format.js';

const MEMBERSHIP_FILTERS = [
  { value: 'all', label: 'All channels' },
  { value: 'member', label: 'Channels I am in' },
  { value: 'notMember', label: 'Channels I am not in' },
];

const NO_FILTERS: ChannelFilters = { userId: '', tags: [], excludeTags: [], filter: 'all' };

function stateOf(channel: ChannelRow['channel']): string {
  if (channel.isClosed) return 'Closed';
  if (channel.isMuted) return channel.muteTimeout ? `Muted until ${when(channel.muteTimeout)}` : 'Muted';
  return 'Open';
}

function membershipOf(row: ChannelRow): string {
  const member = row.channelUser;
  if (member === null) return '—';
  if (member.isBanned) return 'Banned';
  if (member.isMuted) return member.muteTimeout ? `Muted until ${when(member.muteTimeout)}` : 'Muted';
  return member.membership === 'member' ? 'Member' : member.membership;
}

const baseColumns: Array<Column<ChannelRow>> = [
  {
    header: 'Channel',
    cell: ({ channel }) => (
      <Stack gap={0}>
        <Link href={`/channels/${encodeURIComponent(channel.channelId)}`}>{channel.displayName || channel.channelId}</Link>
        <Text size="xs" c="dimmed">
          {channel.channelId}
        </Text>
      </Stack>
    ),
  },
  { header: 'Tags', cell: ({ channel }) => (channel.tags.length === 0 ? '—' : channel.tags.join(', ')) },
  { header: 'Members', cell: ({ channel }) => channel.memberCount },
  { header: 'Messages', cell: ({ channel }) => channel.messageCount },
  { header: 'State', cell: ({ channel }) => stateOf(channel) },
  { header: 'Last activity', cell: ({ channel }) => when(channel.lastActivity) },
];

/** Opens a channel page by its id: the list has no text search. */
function OpenById() {
  const [, navigate] = useLocation();
  const [channelId, setChannelId] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (channelId.trim() !== '') navigate(`/channels/${encodeURIComponent(channelId.trim())}`);
      }}
    >
      <Group align="flex-end" gap="xs">
        <TextInput label="Channel ID" value={channelId} onChange={(event) => setChannelId(event.currentTarget.value)} style={{ flex: '1 1 12rem' }} />
        <Button type="submit" variant="default" disabled={channelId.trim() === ''}>
          Open channel
        </Button>
      </Group>
    </form>
  );
}

/** The channels, newest first, filtered by a user's membership, tags and the admin's own membership. */
export function ChannelList() {
  const [filters, setFilters] = useState<ChannelFilters>(NO_FILTERS);
  const [applied] = useDebouncedValue(filters, 400);
  const pages = useKeysetPages(channelListPages(applied));
  const set = (change: Partial<ChannelFilters>) => setFilters((current) => ({ ...current, ...change }));
  const byUser = applied.userId.trim() !== '';
  const columns = byUser
    ? [...baseColumns.slice(0, 1), { header: `Membership of ${applied.userId.trim()}`, cell: membershipOf }, ...baseColumns.slice(1)]
    : baseColumns;

  return (
    <Stack gap="md">
      <Paper withBorder p="md">
        <Stack gap="sm">
          <OpenById />
          <Group align="flex-end" gap="sm" wrap="wrap">
            <TextInput
              label="Member user ID"
              description="Only channels this user is in"
              value={filters.userId}
              onChange={(event) => set({ userId: event.currentTarget.value })}
              style={{ flex: '1 1 12rem' }}
            />
            <TagsInput label="With any of these tags" value={filters.tags} onChange={(tags) => set({ tags })} style={{ flex: '1 1 12rem' }} clearable />
            <TagsInput
              label="Without these tags"
              value={filters.excludeTags}
              onChange={(excludeTags) => set({ excludeTags })}
              style={{ flex: '1 1 12rem' }}
              clearable
            />
            <Select
              label="My membership"
              data={MEMBERSHIP_FILTERS}
              value={filters.filter}
              onChange={(value) => set({ filter: (value ?? 'all') as ChannelFilters['filter'] })}
              allowDeselect={false}
              style={{ flex: '1 1 12rem' }}
            />
          </Group>
        </Stack>
      </Paper>
      <PagedTable caption="Channels, newest first" columns={columns} rowKey={(row) => row.channel.channelId} pages={pages} empty="No channel matches." />
    </Stack>
  );
}
