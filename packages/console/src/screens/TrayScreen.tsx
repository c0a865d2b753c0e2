import { Alert, Autocomplete, Button, Group, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { TrayRecord } from '../api/types.js';
import { Page } from '../components/Page.js';
import { type KeysetPages, PagedTable } from '../components/PagedTable.js';
import { formatTime } from '../components/time.js';
import { trayPagesQuery, userPickQuery } from './tray/api.js';

function UserPicker({ initial, onPick }: { initial: string; onPick: (userId: string) => void }) {
  const [text, setText] = useState(initial);
  const [debounced] = useDebouncedValue(text.trim(), 300);
  const matches = useQuery(userPickQuery(debounced));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() !== '') onPick(text.trim());
  };
  return (
    <form onSubmit={submit} aria-label="Pick a user">
      <Group align="flex-end" gap="sm">
        <Autocomplete label="User id" value={text} onChange={setText} data={matches.data ?? []} w={280} />
        <Button type="submit">Show tray</Button>
      </Group>
    </form>
  );
}

function actorsOf(record: TrayRecord): string {
  const names = record.actors.map((actor) => actor.name || actor.id).join(', ');
  const others = record.actorsCount - record.actors.length;
  return others > 0 ? `${names} and ${others} more` : names;
}

/** The user's tray a page at a time (GET /api/v2/users/{userId}/tray), with their last-read time from the first page. */
function TrayRecords({ userId }: { userId: string }) {
  const query = useInfiniteQuery(trayPagesQuery(userId));
  const pages: KeysetPages<TrayRecord> = {
    items: query.data?.pages.flatMap((page) => page.data) ?? [],
    hasMore: query.hasNextPage,
    loadMore: () => void query.fetchNextPage(),
    isLoading: query.isLoading,
    isLoadingMore: query.isFetchingNextPage,
    error: query.error,
    refetch: () => void query.refetch(),
  };
  const lastRead = query.data?.pages[0]?.lastRead.lastReadDate;
  return (
    <Stack gap="xs">
      {query.data && (
        <Text size="sm">
          {lastRead === null || lastRead === undefined
            ? `${userId} never marked the whole tray read.`
            : `${userId} marked the whole tray read on ${formatTime(lastRead)}.`}
        </Text>
      )}
      <PagedTable
        caption={`Tray of ${userId}, newest first`}
        pages={pages}
        rowKey={(record) => `${record.verb}:${record.targetId}:${record.targetGroup}`}
        empty={`${userId} has no tray records.`}
        columns={[
          { header: 'Last update', cell: (record) => formatTime(record.lastUpdate) },
          {
            header: 'Notification',
            cell: (record) => (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {record.description}
              </Text>
            ),
          },
          { header: 'Target', cell: (record) => `${record.targetType} ${record.targetId}` },
          { header: 'Actors', cell: actorsOf },
          {
            header: 'Read',
            cell: (record) => (
              <Text size="sm" fw={600} c={record.hasRead ? 'dimmed' : 'blue.8'} style={{ whiteSpace: 'nowrap' }}>
                {record.hasRead ? 'Read' : 'Unread'}
              </Text>
            ),
          },
        ]}
      />
    </Stack>
  );
}

/** A user's notification tray, as their app shows it. Looking changes nothing for the user. */
export function TrayScreen() {
  const userId = new URLSearchParams(useSearch()).get('userId') ?? '';
  const [, navigate] = useLocation();
  return (
    <Page title="Tray inspector">
      <Stack gap="md">
        <UserPicker initial={userId} onPick={(picked) => navigate(`/tray?userId=${encodeURIComponent(picked)}`)} />
        <Alert color="blue" variant="light" title="As the user sees it" role="note">
          The records, sentences, actors and read state are those the user's app shows. Reading them here marks nothing read.
        </Alert>
        {userId !== '' && <TrayRecords key={userId} userId={userId} />}
      </Stack>
    </Page>
  );
}
