import { Button, Group, Modal, Stack, TagsInput, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { ErrorNote } from '../../components/ErrorNote.js';
import { type NewChannel, useCreateChannel } from './api.js';

const EMPTY: NewChannel = { channelId: '', displayName: '', tags: [], userIds: [] };

/** "New channel": a dialog with the create form. The draft outlives the dialog until it is created. */
export function CreateChannel() {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<NewChannel>(EMPTY);
  const [, navigate] = useLocation();
  const create = useCreateChannel({
    onSuccess: () => {
      setDraft(EMPTY);
      setOpen(false);
    },
  });
  const set = (change: Partial<NewChannel>) => setDraft((current) => ({ ...current, ...change }));

  return (
    <>
      <Button onClick={() => setOpen(true)}>New channel</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="New channel">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            // Once the lists are read again (the hook's refresh), the new channel's page opens.
            create.mutate(draft, { onSuccess: (answer) => navigate(`/channels/${encodeURIComponent(answer.channel.channelId)}`) });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Channel ID"
              description="Unique; at most 50 characters, without spaces, / ? # % or backslashes"
              required
              value={draft.channelId}
              onChange={(event) => set({ channelId: event.currentTarget.value })}
              data-autofocus
            />
            <TextInput label="Display name" value={draft.displayName} onChange={(event) => set({ displayName: event.currentTarget.value })} />
            <TagsInput label="Tags" description="Press Enter after each tag" value={draft.tags} onChange={(tags) => set({ tags })} />
            <TagsInput
              label="Initial members (user IDs)"
              description="Press Enter after each user ID"
              value={draft.userIds}
              onChange={(userIds) => set({ userIds })}
            />
            <ErrorNote error={create.error} title="The channel was not created" />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={draft.channelId.trim() === ''}>
                Create channel
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
