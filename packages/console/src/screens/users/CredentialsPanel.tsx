import { Center, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { formatTime } from '../../components/time.js';
import { sessionsQuery, tokensQuery, useRevokeSession, useRevokeToken, useSignOutEverywhere } from './api.js';

function SimpleTable({ caption, headers, rows }: { caption: string; headers: string[]; rows: Array<{ key: string; cells: ReactNode[] }> }) {
  if (rows.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {`No ${caption.toLowerCase()}.`}
      </Text>
    );
  }
  return (
    <Table.ScrollContainer minWidth={520}>
      <Table striped captionSide="top">
        <Table.Caption ta="left" fw={600}>
          {caption}
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {headers.map((header) => (
              <Table.Th key={header}>{header}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(({ key, cells }) => (
            <Table.Tr key={key}>
              {cells.map((cell, column) => (
                <Table.Td key={headers[column]}>{cell}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** A user's live login sessions, access tokens and grants, each revocable, and sign-out everywhere. */
export function CredentialsPanel({ userId }: { userId: string }) {
  const sessions = useQuery(sessionsQuery(userId));
  const tokens = useQuery(tokensQuery(userId));
  const revokeSession = useRevokeSession(userId);
  const revokeToken = useRevokeToken(userId);
  const signOutEverywhere = useSignOutEverywhere(userId, {
    onSuccess: (answer) => {
      const { sessions: ended, accessTokens, grants } = answer.revoked;
      notifications.show({ color: 'green', message: `Signed out: ${ended} sessions, ${accessTokens} access tokens and ${grants} grants revoked.` });
    },
  });

  if (sessions.isPending || tokens.isPending) {
    return (
      <Center p="md">
        <Loader aria-label="Loading sessions and tokens" />
      </Center>
    );
  }
  return (
    <Stack gap="md">
      <Title order={2} size="h4">
        Sessions and tokens
      </Title>
      <ErrorNote error={sessions.error ?? tokens.error} />
      <Group>
        <ConfirmAction
          label="Sign out everywhere"
          title="Sign this user out everywhere?"
          message="Every login session, grant and access token of the user is revoked."
          onConfirm={() => signOutEverywhere.mutateAsync()}
        />
      </Group>
      <SimpleTable
        caption="Login sessions"
        headers={['Signed in', 'Last seen', 'Expires', 'Action']}
        rows={(sessions.data?.sessions ?? []).map((session) => ({
          key: session.sessionId,
          cells: [
            formatTime(session.createdAt),
            formatTime(session.lastSeenAt),
            formatTime(session.expiresAt),
            <ConfirmAction
              key="revoke"
              label="Revoke"
              size="xs"
              title="Revoke this login session?"
              message="The browser is signed out."
              onConfirm={() => revokeSession.mutateAsync(session.sessionId)}
            />,
          ],
        }))}
      />
      <SimpleTable
        caption="Access tokens"
        headers={['Issued', 'Expires', 'Source', 'Client', 'Scope', 'Action']}
        rows={(tokens.data?.accessTokens ?? []).map((token) => ({
          key: token.tokenId,
          cells: [
            formatTime(token.createdAt),
            token.expiresAt ? formatTime(token.expiresAt) : 'never',
            token.source,
            token.clientId ?? 'minted',
            token.scope ?? 'full access',
            <ConfirmAction key="revoke" label="Revoke" size="xs" title="Revoke this access token?" onConfirm={() => revokeToken.mutateAsync(token.tokenId)} />,
          ],
        }))}
      />
      <SimpleTable
        caption="Grants"
        headers={['Signed in', 'Last refresh', 'Client', 'Scope', 'Action']}
        rows={(tokens.data?.grants ?? []).map((grant) => ({
          key: grant.grantId,
          cells: [
            formatTime(grant.signedInAt),
            formatTime(grant.refreshTokenIssuedAt),
            grant.clientId,
            grant.scope,
            <ConfirmAction
              key="revoke"
              label="Revoke"
              size="xs"
              title="Revoke this grant?"
              message="Its refresh token and the access tokens issued from it stop working."
              onConfirm={() => revokeToken.mutateAsync(grant.grantId)}
            />,
          ],
        }))}
      />
    </Stack>
  );
}
