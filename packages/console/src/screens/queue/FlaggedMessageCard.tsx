import { Alert, Anchor, Badge, Card, Divider, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'wouter';
import type { FlaggedMessage, Review } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { AuthedAvatar } from '../../components/AuthedMedia.js';
import { formatTime } from '../../components/time.js';
import { FlagList } from './FlagList.js';
import { MessageBody } from './MessageBody.js';
import { MessageReviewActions } from './MessageReviewActions.js';
import { outcomeOf } from './outcome.js';
import { ThreadContextView } from './ThreadContextView.js';

/** One flagged message: its content, author and channel, who flagged it and why, its thread, and the decisions. */
export function FlaggedMessageCard({ item, review, onDecided }: { item: FlaggedMessage; review: Review | undefined; onDecided: (review: Review) => void }) {
  const { can } = useSession();
  const { message, author, channel } = item;
  const authorName = author.displayName || author.userId;
  const headingId = `flagged-${message.messageId}`;
  return (
    <Card withBorder padding="md" component="article" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <AuthedAvatar url={author.avatarUrl} name={authorName} />
            <div>
              <Title order={2} size="h5" id={headingId}>
                {authorName}
              </Title>
              <Text size="xs" c="dimmed">
                in{' '}
                <Anchor component={Link} href={`/channels/${encodeURIComponent(channel.channelId)}`} size="xs">
                  {channel.displayName || channel.channelId}
                </Anchor>{' '}
                · {formatTime(message.createdAt)}
                {message.parentId ? ' · comment' : ''}
              </Text>
            </div>
          </Group>
          <Badge color="red" variant="light" style={{ flexShrink: 0 }}>
            {item.flagCount} {item.flagCount === 1 ? 'flag' : 'flags'}
          </Badge>
        </Group>
        <MessageBody message={message} />
        <FlagList flags={item.flags} label={`Flags on the message by ${authorName}`} />
        <ThreadContextView message={message} author={author} />
        <Divider />
        {review ? (
          <Alert color="green" title="Decision recorded" role="status">
            {outcomeOf(review)}
            {review.note ? `. Note: ${review.note}` : ''}
          </Alert>
        ) : (
          <MessageReviewActions item={item} onDecided={onDecided} />
        )}
        {can('EDIT_USER') && (
          <Anchor component={Link} href={`/users/${encodeURIComponent(author.userId)}`} size="xs">
            {`Open ${authorName}'s account`}
          </Anchor>
        )}
      </Stack>
    </Card>
  );
}
