import { Alert, Anchor, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'wouter';
import { DecisionNote } from './DecisionNote.js';
import { serverUrl } from '../../api/base.js';
import type { FlaggedUser, Review, UserReviewInput } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { AuthedAvatar } from '../../components/AuthedMedia.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { Duration, durationLabel } from '../../components/Duration.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useReviewUser } from './api.js';
import { FlagList } from './FlagList.js';
import { outcomeOf } from './outcome.js';

function UserReviewActions({ item, onDecided }: { item: FlaggedUser; onDecided: (review: Review) => void }) {
  const { can } = useSession();
  const [note, setNote] = useState('');
  const [minutes, setMinutes] = useState<number | undefined>(1440);
  const [dismissing, setDismissing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const name = item.user.displayName || item.user.userId;
  const reviewUser = useReviewUser(item.user.userId);

  const decide = async (input: UserReviewInput) => {
    const trimmed = note.trim();
    const { review } = await reviewUser.mutateAsync(trimmed === '' ? input : { ...input, note: trimmed });
    onDecided(review);
  };
  const dismiss = async () => {
    setDismissing(true);
    setError(null);
    try {
      await decide({ decision: 'dismiss' });
    } catch (thrown) {
      setError(thrown);
      setDismissing(false);
    }
  };

  return (
    <Stack gap="sm">
      <DecisionNote value={note} onChange={setNote} />
      <ErrorNote error={error} />
      <Group gap="xs" align="flex-end" wrap="wrap">
        <Button variant="default" onClick={() => void dismiss()} loading={dismissing}>
          Dismiss
        </Button>
        {can('BAN_USER') && (
          <>
            <Duration value={minutes} onChange={setMinutes} />
            <ConfirmAction
              label="Ban globally"
              title={`Ban ${name} globally?`}
              message={`${name} is banned from the whole network ${minutes === undefined ? 'permanently' : `for ${durationLabel(minutes)}`} and signed out everywhere.`}
              onConfirm={() => decide(minutes === undefined ? { decision: 'globalBan' } : { decision: 'globalBan', minutes })}
            />
          </>
        )}
      </Group>
    </Stack>
  );
}

/** One flagged user: who they are, who flagged them and why, and the decisions. */
export function FlaggedUserCard({ item, review, onDecided }: { item: FlaggedUser; review: Review | undefined; onDecided: (review: Review) => void }) {
  const { can } = useSession();
  const { user } = item;
  const name = user.displayName || user.userId;
  const headingId = `flagged-user-${user.userId}`;
  return (
    <Card withBorder padding="md" component="article" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <AuthedAvatar url={user.avatar ? serverUrl(`/file/view/${encodeURIComponent(user.avatar)}?size=small`) : null} name={name} />
            <div>
              <Title order={2} size="h5" id={headingId}>
                {name}
              </Title>
              <Text size="xs" c="dimmed">
                {can('EDIT_USER') ? (
                  <Anchor component={Link} href={`/users/${encodeURIComponent(user.userId)}`} size="xs">
                    {user.userId}
                  </Anchor>
                ) : (
                  user.userId
                )}
                {user.isGlobalBan ? ' · banned globally' : ''}
              </Text>
            </div>
          </Group>
          <Badge color="red" variant="light" style={{ flexShrink: 0 }}>
            {item.flagCount} {item.flagCount === 1 ? 'flag' : 'flags'}
          </Badge>
        </Group>
        <FlagList flags={item.flags} label={`Flags on ${name}`} />
        {review ? (
          <Alert color="green" title="Decision recorded" role="status">
            {outcomeOf(review)}
            {review.note ? `. Note: ${review.note}` : ''}
          </Alert>
        ) : (
          <UserReviewActions item={item} onDecided={onDecided} />
        )}
      </Stack>
    </Card>
  );
}
