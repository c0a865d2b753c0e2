import { Badge, Button, Center, Group, Loader, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormCard } from '../../components/FormCard.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { when } from '../channels/format.js';
import type { AdminToken, NewAdminToken } from '../../api/types.js';
import { adminTokensQuery, useCreateAdminToken, useRevokeAdminToken } from './api.js';
import { ShownOnce } from './ShownOnce.js';

const LIFETIMES = [
  { value: 'never', label: 'Never expires' },
  { value: '86400', label: '1 day' },
  { value: '2592000', label: '30 days' },
  { value: '7776000', label: '90 days' },
  { value: '31536000', label: '1 year' },
];

function stateOf(token: AdminToken) {
  if (token.revokedAt !== null) return <Badge color="gray">Revoked {when(token.revokedAt)}</Badge>;
  if (token.expiresAt !== null && new Date(token.expiresAt).getTime() <= Date.now()) return <Badge color="gray">Expired</Badge>;
  return <Badge color="green">Active</Badge>;
}

function CreateTokenForm({ onCreated }: { onCreated: (token: NewAdminToken) => void }) {
  const [name, setName] = useState('');
  const [lifetime, setLifetime] = useState('never');
  const create = useCreateAdminToken({
    onSuccess: (token) => {
      setName('');
      onCreated(token);
    },
  });
  return (
    <FormCard title="Create an admin token" onSubmit={() => create.mutate({ name, expiresIn: lifetime === 'never' ? undefined : Number(lifetime) })}>
      <Text size="sm">An admin token holds every right on the admin API: give one to each automation, and revoke it when it is no longer used.</Text>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput
          label="Token name"
          description="Letters, digits, . _ -; it acts as the user admin-<name>"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          style={{ flex: '1 1 14rem' }}
        />
        <Select label="Expires" data={LIFETIMES} value={lifetime} onChange={(value) => setLifetime(value ?? 'never')} allowDeselect={false} w={180} />
      </Group>
      <ErrorNote error={create.error} title="The token was not created" />
      <Group justify="flex-end">
        <Button type="submit" loading={create.isPending} disabled={name.trim() === ''}>
          Create token
        </Button>
      </Group>
    </FormCard>
  );
}

/** Admin tokens: listed without the tokens, created (the token shown once), revoked after a confirmation. */
export function AdminTokensPanel() {
  const tokens = useQuery(adminTokensQuery());
  const revoke = useRevokeAdminToken();
  const [created, setCreated] = useState<NewAdminToken | null>(null);
  return (
    <Stack gap="md">
      <CreateTokenForm onCreated={setCreated} />
      <ErrorNote error={tokens.error} title="The admin tokens could not be read" />
      {tokens.isLoading ? (
        <Center p="md">
          <Loader aria-label="Loading admin tokens" />
        </Center>
      ) : (
        <Table.ScrollContainer minWidth={760}>
          <Table striped captionSide="top">
            <Table.Caption>Admin tokens</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(tokens.data ?? []).map((token) => (
                <Table.Tr key={token.tokenId}>
                  <Table.Td>
                    <Stack gap={0}>
                      <Text size="sm">{token.name}</Text>
                      <Text size="xs" c="dimmed">
                        {token.userId}
                      </Text>
                    </Stack>
                  </Table.Td>
                  <Table.Td>{stateOf(token)}</Table.Td>
                  <Table.Td>{when(token.createdAt)}</Table.Td>
                  <Table.Td>{token.expiresAt === null ? 'Never' : when(token.expiresAt)}</Table.Td>
                  <Table.Td>{when(token.lastUsedAt)}</Table.Td>
                  <Table.Td>
                    {token.environment ? (
                      <Text size="sm" c="dimmed">
                        Set by PARLEY_ADMIN_TOKEN
                      </Text>
                    ) : token.revokedAt === null ? (
                      <ConfirmAction
                        label={`Revoke ${token.name}`}
                        title={`Revoke the admin token ${token.name}?`}
                        message="Whatever uses it is refused from now on (on every server within seconds). This cannot be undone."
                        size="xs"
                        onConfirm={() => revoke.mutateAsync(token.tokenId)}
                      />
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {created && (
        <ShownOnce
          title={`Admin token ${created.name} created`}
          intro={`It acts as ${created.userId}${created.expiresAt ? ` until ${when(created.expiresAt)}` : ''}. Send it as Authorization: Bearer <token>.`}
          secrets={[{ label: 'token', value: created.token }]}
          onClose={() => setCreated(null)}
        />
      )}
    </Stack>
  );
}
