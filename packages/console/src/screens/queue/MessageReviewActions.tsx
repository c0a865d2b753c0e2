import { Button, Checkbox, Group, Select, Stack } from '@mantine/core';
import { useState } from 'react';
import { DecisionNote } from './DecisionNote.js';
import type { AuthorAction, FlaggedMessage, MessageReviewInput, Review } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { Duration, durationLabel } from '../../components/Duration.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useReviewMessage } from './api.js';

const AUTHOR_ACTIONS: Array<{ value: AuthorAction; label: string; permission: string }> = [
  { value: 'mute', label: 'Mute in channel', permission: 'MUTE_USER_INSIDE_CHANNEL' },
  { value: 'ban', label: 'Ban in channel', permission: 'BAN_USER_FROM_CHANNEL' },
  { value: 'globalBan', label: 'Ban globally', permission: 'BAN_USER' },
];

function questionOf(action: AuthorAction, author: string, channel: string): string {
  if (action === 'mute') return `Mute ${author} in ${channel}?`;
  if (action === 'ban') return `Ban ${author} from ${channel}?`;
  return `Ban ${author} globally?`;
}

function withNote(input: MessageReviewInput, note: string): MessageReviewInput {
  const trimmed = note.trim();
  return trimmed === '' ? input : { ...input, note: trimmed };
}

/** The decisions on one flagged message: dismiss, delete, or act on the author (with a duration). */
export function MessageReviewActions({ item, onDecided }: { item: FlaggedMessage; onDecided: (review: Review) => void }) {
  const { can } = useSession();
  const allowed = AUTHOR_ACTIONS.filter((action) => can(action.permission));
  const [note, setNote] = useState('');
  const [action, setAction] = useState<AuthorAction>(allowed[0]?.value ?? 'mute');
  const [minutes, setMinutes] = useState<number | undefined>(60);
  const [alsoDelete, setAlsoDelete] = useState(can('DELETE_MESSAGE'));
  const [dismissing, setDismissing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const messageId = item.message.messageId;
  const author = item.author.displayName || item.author.userId;
  const channelName = item.channel.displayName || item.channel.channelId;
  const chosen = AUTHOR_ACTIONS.find((entry) => entry.value === action) ?? AUTHOR_ACTIONS[0];
  const reviewMessage = useReviewMessage(messageId);

  const decide = async (input: MessageReviewInput) => {
    const { review } = await reviewMessage.mutateAsync(withNote(input, note));
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

  const authorInput = (): MessageReviewInput => ({
    decision: alsoDelete ? 'delete' : 'dismiss',
    author: minutes === undefined ? { action } : { action, minutes },
  });

  return (
    <Stack gap="sm">
      <DecisionNote value={note} onChange={setNote} />
      <ErrorNote error={error} />
      <Group gap="xs">
        <Button variant="default" onClick={() => void dismiss()} loading={dismissing}>
          Dismiss
        </Button>
        {can('DELETE_MESSAGE') && (
          <ConfirmAction
            label="Delete message"
            title="Delete this message?"
            message="The message is deleted for everyone and its flags are closed."
            onConfirm={() => decide({ decision: 'delete' })}
          />
        )}
      </Group>
      {chosen && allowed.length > 0 && (
        <Group gap="xs" align="flex-end" wrap="wrap">
          <Select
            label="Author action"
            data={allowed.map(({ value, label }) => ({ value, label }))}
            value={action}
            onChange={(value) => value && setAction(value as AuthorAction)}
            allowDeselect={false}
            w={170}
          />
          <Duration value={minutes} onChange={setMinutes} />
          {can('DELETE_MESSAGE') && (
            <Checkbox label="Delete the message too" checked={alsoDelete} onChange={(event) => setAlsoDelete(event.currentTarget.checked)} mb={8} />
          )}
          <ConfirmAction
            label={chosen.label}
            title={questionOf(chosen.value, author, channelName)}
            message={`${author} is ${chosen.value === 'mute' ? 'muted' : 'banned'}${chosen.value === 'globalBan' ? ' from the whole network' : ` in ${item.channel.displayName || item.channel.channelId}`} ${minutes === undefined ? 'permanently' : `for ${durationLabel(minutes)}`}${alsoDelete ? ', and the message is deleted' : ''}.`}
            onConfirm={() => decide(authorInput())}
          />
        </Group>
      )}
    </Stack>
  );
}
