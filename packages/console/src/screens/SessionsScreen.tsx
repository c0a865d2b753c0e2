import { Anchor, Button, Group, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { Link } from 'wouter';
import { ConfirmAction } from '../components/ConfirmAction.js';
import { Page } from '../components/Page.js';
import { PagedTable, useKeysetPages } from '../components/PagedTable.js';
import { formatTime } from '../components/time.js';
import { liveSessionPages, useRevokeLiveSession } from './sessions/api.js';

/** Who is signed in where: every user's live login sessions, newest first, each revocable. */
export function SessionsScreen() {
  const [draft, setDraft] = useState('');
  const [userId, setUserId] = useState('');
  const pages = useKeysetPages(liveSessionPages(userId));
  const revoke = useRevokeLiveSession();

  return (
    <Page title="Sessions">
      <Text size="sm" c="dimmed">
        Browsers signed in at the sign-in pages. A session keeps no address or device: who, when they signed in, and when the browser last came back. Revoking
        one signs that browser out; the apps it signed in to keep their tokens (see the user's Access tab).
      </Text>
      <form
        aria-label="Session filter"
        onSubmit={(event) => {
          event.preventDefault();
          setUserId(draft.trim());
        }}
      >
        <Group align="flex-end" gap="sm">
          <TextInput
            label="User id"
            description="Only this user's sessions"
            value={draft}
            onChange={(event) => setDraft(event.currentTarget.value)}
            maxLength={50}
            w={260}
          />
          <Button type="submit">Show</Button>
          {userId !== '' && (
            <Button
              variant="subtle"
              onClick={() => {
                setDraft('');
                setUserId('');
              }}
            >
              Everyone
            </Button>
          )}
        </Group>
      </form>
      <PagedTable
        caption={userId === '' ? 'Live sessions' : `Live sessions of ${userId}`}
        pages={pages}
        rowKey={(session) => session.sessionId}
        empty={userId === '' ? 'Nobody is signed in at the sign-in pages.' : `${userId} is not signed in anywhere.`}
        columns={[
          {
            header: 'User',
            cell: (session) => (
              <Anchor component={Link} href={`/users/${encodeURIComponent(session.userId)}`}>
                {session.displayName ? `${session.displayName} (${session.userId})` : session.userId}
              </Anchor>
            ),
          },
          { header: 'Signed in', cell: (session) => formatTime(session.createdAt) },
          { header: 'Last used', cell: (session) => formatTime(session.lastSeenAt) },
          { header: 'Expires', cell: (session) => formatTime(session.expiresAt) },
          {
            header: 'Action',
            cell: (session) => (
              <ConfirmAction
                label="Revoke"
                size="xs"
                title={`Revoke this session of ${session.displayName || session.userId}?`}
                message="The browser is signed out."
                onConfirm={async () => {
                  await revoke.mutateAsync(session);
                  notifications.show({ color: 'green', message: `Session of ${session.userId} revoked.` });
                }}
              />
            ),
          },
        ]}
      />
    </Page>
  );
}
