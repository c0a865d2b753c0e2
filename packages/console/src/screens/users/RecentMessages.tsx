import { Anchor, Badge, Button, Center, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import type { AdminMessage } from '../../api/types.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { formatTime } from '../../components/time.js';
import { userMessagesQuery } from './api.js';

/** Empty pages read on their own, one after another, before the console asks to search further. */
const AUTOMATIC_EMPTY_PAGES = 5;

function summaryOf(message: AdminMessage): string {
  if (message.isDeleted) return '(deleted)';
  const text = message.data.text ?? message.data.caption ?? message.data.fileName;
  return typeof text === 'string' ? text : `(${message.type})`;
}

/**
 * The user's messages in every channel, newest first (GET /api/v2/users/{userId}/messages). Each page
 * searches a bounded stretch of all messages, so a page may find none and still go on: empty pages are
 * read on automatically a few at a time, then "Search further back" goes on by hand.
 */
export function RecentMessages({ userId }: { userId: string }) {
  const query = useInfiniteQuery(userMessagesQuery(userId));
  // How many more empty pages may be read without asking; a click grants as many again.
  const [automaticLeft, setAutomaticLeft] = useState(AUTOMATIC_EMPTY_PAGES);
  const pages = query.data?.pages ?? [];
  const last = pages[pages.length - 1];
  const lastIsEmpty = last !== undefined && last.items.length === 0 && last.next !== null;
  const { hasNextPage, isFetchingNextPage, isError, fetchNextPage } = query;

  useEffect(() => {
    if (!lastIsEmpty || !hasNextPage || isFetchingNextPage || isError || automaticLeft <= 0) return;
    setAutomaticLeft((left) => left - 1);
    void fetchNextPage();
  }, [lastIsEmpty, hasNextPage, isFetchingNextPage, isError, automaticLeft, fetchNextPage]);

  const searchOn = () => {
    setAutomaticLeft(AUTOMATIC_EMPTY_PAGES);
    void fetchNextPage();
  };

  if (query.isLoading) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  const items = pages.flatMap((page) => page.items);
  const searching = lastIsEmpty && (isFetchingNextPage || automaticLeft > 0) && !isError;
  const scannedTo = last?.scannedTo ?? null;
  return (
    <Stack gap="sm">
      <ErrorNote error={query.error} />
      <Table.ScrollContainer minWidth={560}>
        <Table striped highlightOnHover captionSide="top">
          <Table.Caption ta="left" fw={600}>
            Recent messages
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>When</Table.Th>
              <Table.Th>Channel</Table.Th>
              <Table.Th>Message</Table.Th>
              <Table.Th>Flags</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map(({ message, channelName }) => (
              <Table.Tr key={message.messageId}>
                <Table.Td>{formatTime(message.createdAt)}</Table.Td>
                <Table.Td>
                  <Anchor component={Link} href={`/channels/${encodeURIComponent(message.channelId)}`}>
                    {channelName || message.channelId}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2} c={message.isDeleted ? 'dimmed' : undefined} style={{ overflowWrap: 'anywhere' }}>
                    {summaryOf(message)}
                  </Text>
                </Table.Td>
                <Table.Td>{message.flagCount > 0 ? <Badge color="orange">{message.flagCount}</Badge> : 0}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {last !== undefined && last.next === null && items.length === 0 && !isError && <Text c="dimmed">No messages.</Text>}
      {searching && (
        <Group gap="xs">
          <Loader size="xs" aria-label="Searching older messages" />
          <Text size="sm" c="dimmed">
            Searching older messages…
          </Text>
        </Group>
      )}
      {lastIsEmpty && !searching && (
        <Group gap="sm">
          <Text c="dimmed">
            No {items.length === 0 ? '' : 'more '}messages found back to {formatTime(scannedTo)}.
          </Text>
          <Button variant="default" onClick={searchOn} loading={isFetchingNextPage}>
            Search further back
          </Button>
        </Group>
      )}
      {!lastIsEmpty && hasNextPage && (
        <Button variant="default" onClick={searchOn} loading={isFetchingNextPage} style={{ alignSelf: 'flex-start' }}>
          Load more
        </Button>
      )}
      <Text size="xs" c="dimmed">
        {scannedTo === null ? 'Searched back to the oldest message.' : `Searched back to ${formatTime(scannedTo)}.`}
      </Text>
    </Stack>
  );
}
