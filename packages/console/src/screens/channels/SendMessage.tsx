import { Button, Group, TagsInput, Text, Textarea, TextInput } from '@mantine/core';
import { useState } from 'react';
import { FormCard } from '../../components/FormCard.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { type OutgoingMessage, useSendMessage } from './api.js';

/** "Send as admin": a text message from the signed-in admin's account, optionally as a comment of a message. */
export function SendMessage({ channelId }: { channelId: string }) {
  const [draft, setDraft] = useState<Omit<OutgoingMessage, 'channelId'>>({ text: '', tags: [], parentId: '' });
  const set = (change: Partial<typeof draft>) => setDraft((current) => ({ ...current, ...change }));
  // Only the text goes: the tags and parent stay for the next message.
  const send = useSendMessage(channelId, { onSuccess: () => setDraft((current) => ({ ...current, text: '' })) });

  return (
    <FormCard title="Send as admin" onSubmit={() => send.mutate({ ...draft, channelId })}>
      <Text size="sm" c="dimmed">
        The message is posted from the account you signed in with; with an admin token, from the server's admin account.
      </Text>
      <Group gap="sm" align="flex-start" wrap="wrap">
        <TextInput
          label="Comment on message ID"
          description="Empty: a top-level message"
          value={draft.parentId ?? ''}
          onChange={(event) => set({ parentId: event.currentTarget.value })}
          style={{ flex: '1 1 12rem' }}
        />
        <TagsInput label="Tags" value={draft.tags} onChange={(tags) => set({ tags })} style={{ flex: '1 1 12rem' }} />
      </Group>
      <Textarea
        label="Message text"
        autosize
        minRows={2}
        maxRows={10}
        maxLength={20000}
        value={draft.text}
        onChange={(event) => set({ text: event.currentTarget.value })}
      />
      <ErrorNote error={send.error} title="The message was not sent" />
      <Group justify="flex-end">
        <Button type="submit" loading={send.isPending} disabled={draft.text.trim() === ''}>
          Send message
        </Button>
      </Group>
    </FormCard>
  );
}
