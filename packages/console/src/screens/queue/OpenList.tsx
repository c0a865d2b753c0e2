import { Button, Center, Loader, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Fragment, type ReactNode, useState } from 'react';
import type { KeysetPagesOptions } from '../../api/keyset.js';
import type { FlaggedMessage, FlaggedUser, Review } from '../../api/types.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useKeysetPages } from '../../components/useKeysetPages.js';
import { openMessagesPages, openUsersPages } from './api.js';
import { FlaggedMessageCard } from './FlaggedMessageCard.js';
import { FlaggedUserCard } from './FlaggedUserCard.js';
import { outcomeOf } from './outcome.js';

/**
 * Decided items stay on screen with their outcome, in the place they had, although the refetched queue
 * no longer lists them: the moderator sees what their click did. They go when the screen is left.
 */
function useDecided<T>(keyOf: (item: T) => string) {
  const [decided, setDecided] = useState<Array<{ item: T; review: Review }>>([]);
  const record = (item: T, review: Review) => {
    setDecided((list) => [{ item, review }, ...list.filter((entry) => keyOf(entry.item) !== keyOf(item))]);
    notifications.show({ color: 'green', title: 'Decision recorded', message: outcomeOf(review) });
  };
  const merge = (live: T[]): Array<{ item: T; review: Review | undefined }> => {
    const seen = new Set(decided.map((entry) => keyOf(entry.item)));
    return [...decided, ...live.filter((item) => !seen.has(keyOf(item))).map((item) => ({ item, review: undefined }))];
  };
  return { record, merge };
}

/**
 * One open list of the queue (messages or users): keyset pages, newest flag first, with the decided
 * items kept in place and a card per item.
 */
function OpenList<T>(props: {
  pages: KeysetPagesOptions<T>;
  keyOf: (item: T) => string;
  card: (item: T, review: Review | undefined, onDecided: (review: Review) => void) => ReactNode;
}) {
  const pages = useKeysetPages(props.pages);
  const decided = useDecided<T>(props.keyOf);
  const entries = decided.merge(pages.items);
  if (pages.isLoading) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading the queue" />
      </Center>
    );
  }
  return (
    <Stack gap="md">
      <ErrorNote error={pages.error} title="The queue could not be loaded" />
      {entries.length === 0 && !pages.error && <Text c="dimmed">Nothing to review. New flags appear here within a few seconds.</Text>}
      {entries.map(({ item, review }) => (
        <Fragment key={props.keyOf(item)}>{props.card(item, review, (next) => decided.record(item, next))}</Fragment>
      ))}
      {pages.hasMore && (
        <Button variant="default" onClick={pages.loadMore} loading={pages.isLoadingMore} style={{ alignSelf: 'flex-start' }}>
          Load more
        </Button>
      )}
    </Stack>
  );
}

export function OpenMessages() {
  return (
    <OpenList<FlaggedMessage>
      pages={openMessagesPages()}
      keyOf={(item) => item.message.messageId}
      card={(item, review, onDecided) => <FlaggedMessageCard item={item} review={review} onDecided={onDecided} />}
    />
  );
}

export function OpenUsers() {
  return (
    <OpenList<FlaggedUser>
      pages={openUsersPages()}
      keyOf={(item) => item.user.userId}
      card={(item, review, onDecided) => <FlaggedUserCard item={item} review={review} onDecided={onDecided} />}
    />
  );
}
