import { Button, Center, Group, Loader, Stack, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { AdminUser } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { messagesQuery, useDeleteMessage } from './api.js';
import { MessageItem } from './MessageItem.js';
import { SendMessage } from './SendMessage.js';

interface ThreadProps {
  channelId: string;
  /** null: the channel's top-level messages; a message id: its comments. */
  parentId: string | null;
}

/**
 * A keyset-paged list of messages, newest first. Only the pages asked for are loaded ("Load older
 * messages" continues with the previous page's token), so a channel of any length opens at once.
 */
function MessageThread({ channelId, parentId }: ThreadProps) {
  const { can } = useSession();
  const [openComments, setOpenComments] = useState<ReadonlySet<string>>(new Set());
  const thread = useInfiniteQuery(messagesQuery(channelId, parentId));
  const remove = useDeleteMessage(channelId, parentId);
  const pages = thread.data?.pages ?? [];
  const messages = pages.flatMap((page) => page.messages);
  const authors = useMemo(() => {
    const byId = new Map<string, AdminUser>();
    for (const page of thread.data?.pages ?? []) for (const user of page.users) byId.set(user.userId, user);
    return byId;
  }, [thread.data]);
  const mayDelete = can('DELETE_MESSAGE');
  const noun = parentId === null ? 'messages' : 'comments';
  const one = parentId === null ? 'message' : 'comment';

  const toggle = (messageId: string) =>
    setOpenComments((current) => {
      const next = new Set(current);
      if (!next.delete(messageId)) next.add(messageId);
      return next;
    });

  if (thread.isLoading) {
    return (
      <Center p="md">
        <Loader aria-label={`Loading ${noun}`} />
      </Center>
    );
  }
  return (
    <Stack gap="sm">
      <ErrorNote error={thread.error} title={`The ${noun} could not be read`} />
      <Group justify="space-between">
        <Text size="sm" c="dimmed" role="status">
          {messages.length === 0 ? `No ${noun}.` : `${messages.length} ${messages.length === 1 ? one : noun} loaded, newest first.`}
        </Text>
        <Button size="xs" variant="subtle" onClick={() => void thread.refetch()} loading={thread.isRefetching && !thread.isFetchingNextPage}>
          Refresh {noun}
        </Button>
      </Group>
      {messages.map((message) => (
        <MessageItem
          key={message.messageId}
          message={message}
          author={authors.get(message.userId)}
          mayDelete={mayDelete}
          onDelete={() => remove.mutateAsync(message.messageId)}
          commentsOpen={openComments.has(message.messageId)}
          onToggleComments={parentId === null ? () => toggle(message.messageId) : undefined}
          comments={parentId === null ? <MessageThread channelId={channelId} parentId={message.messageId} /> : undefined}
        />
      ))}
      {thread.hasNextPage && (
        <Button variant="default" onClick={() => void thread.fetchNextPage()} loading={thread.isFetchingNextPage} style={{ alignSelf: 'flex-start' }}>
          Load older {noun}
        </Button>
      )}
    </Stack>
  );
}

/** The channel's messages browser, with "Send as admin" for network admins. */
export function MessagesPanel({ channelId, closed }: { channelId: string; closed: boolean }) {
  // Sending as the admin is a network admin's act (moderators read and delete).
  const { isNetworkAdmin } = useSession();
  return (
    <Stack gap="md">
      {isNetworkAdmin && !closed && <SendMessage channelId={channelId} />}
      <MessageThread channelId={channelId} parentId={null} />
    </Stack>
  );
}
