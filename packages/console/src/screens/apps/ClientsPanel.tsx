import { Button, Center, Checkbox, Group, List, Loader, Modal, Paper, Radio, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { when } from '../channels/format.js';
import type { NewOAuthClient, OAuthClient } from '../../api/types.js';
import { CONSOLE_CLIENT_ID, type ClientDraft, clientsQuery, urisOf, useCreateClient, useDeleteClient, useUpdateClientUris } from './api.js';
import { ShownOnce } from './ShownOnce.js';

const EMPTY_DRAFT = { name: '', redirectUris: '', postLogoutRedirectUris: '', public: false, refreshTokens: true };
type Draft = typeof EMPTY_DRAFT;

const draftToClient = (draft: Draft): ClientDraft => ({
  ...draft,
  redirectUris: urisOf(draft.redirectUris),
  postLogoutRedirectUris: urisOf(draft.postLogoutRedirectUris),
});

function UriFields({ redirect, postLogout, onChange }: { redirect: string; postLogout: string; onChange: (change: Partial<Draft>) => void }) {
  return (
    <>
      <Textarea
        label="Sign-in redirect URIs, one per line"
        description="Absolute URIs, matched exactly at sign-in"
        autosize
        minRows={2}
        required
        value={redirect}
        onChange={(event) => onChange({ redirectUris: event.currentTarget.value })}
      />
      <Textarea
        label="Post-logout redirect URIs, one per line"
        description="Where /logout may send the browser back to; none by default"
        autosize
        minRows={1}
        value={postLogout}
        onChange={(event) => onChange({ postLogoutRedirectUris: event.currentTarget.value })}
      />
    </>
  );
}

function CreateClientForm({ onCreated }: { onCreated: (client: NewOAuthClient) => void }) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const set = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));
  const create = useCreateClient({
    onSuccess: (client) => {
      setDraft(EMPTY_DRAFT);
      setOpen(false);
      onCreated(client);
    },
  });
  return (
    <>
      <Button onClick={() => setOpen(true)} style={{ alignSelf: 'flex-start' }}>
        New OAuth client
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="New OAuth client" size="lg">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            create.mutate(draftToClient(draft));
          }}
        >
          <Stack gap="sm">
            <TextInput label="Name" required value={draft.name} onChange={(event) => set({ name: event.currentTarget.value })} data-autofocus />
            <Radio.Group label="Client type" value={draft.public ? 'public' : 'confidential'} onChange={(value) => set({ public: value === 'public' })}>
              <Stack gap={6} mt={6}>
                <Radio value="confidential" label="Confidential: a server-side app that keeps a client secret" />
                <Radio value="public" label="Public: a browser or mobile app, no secret, PKCE required" />
              </Stack>
            </Radio.Group>
            <UriFields redirect={draft.redirectUris} postLogout={draft.postLogoutRedirectUris} onChange={set} />
            <Checkbox label="Issue refresh tokens" checked={draft.refreshTokens} onChange={(event) => set({ refreshTokens: event.currentTarget.checked })} />
            <ErrorNote error={create.error} title="The client was not created" />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={draft.name.trim() === '' || urisOf(draft.redirectUris).length === 0}>
                Create client
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function EditUris({ client }: { client: OAuthClient }) {
  const [open, setOpen] = useState(false);
  const [uris, setUris] = useState({ redirect: '', postLogout: '' });
  const save = useUpdateClientUris(client.clientId, { onSuccess: () => setOpen(false) });
  const openDialog = () => {
    setUris({ redirect: client.redirectUris.join('\n'), postLogout: client.postLogoutRedirectUris.join('\n') });
    save.reset();
    setOpen(true);
  };
  return (
    <>
      <Button size="xs" variant="default" onClick={openDialog} aria-label={`Edit URIs of ${client.name}`}>
        Edit URIs
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`URIs of ${client.name}`} size="lg">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ redirectUris: urisOf(uris.redirect), postLogoutRedirectUris: urisOf(uris.postLogout) });
          }}
        >
          <Stack gap="sm">
            <UriFields
              redirect={uris.redirect}
              postLogout={uris.postLogout}
              onChange={(change) =>
                setUris((current) => ({
                  redirect: change.redirectUris ?? current.redirect,
                  postLogout: change.postLogoutRedirectUris ?? current.postLogout,
                }))
              }
            />
            <ErrorNote error={save.error} title="The URIs were not saved" />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending} disabled={urisOf(uris.redirect).length === 0}>
                Save URIs
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function UriList({ uris }: { uris: string[] }) {
  if (uris.length === 0) return <Text size="sm">—</Text>;
  return (
    <List size="sm" spacing={2}>
      {uris.map((uri) => (
        <List.Item key={uri} style={{ overflowWrap: 'anywhere' }}>
          {uri}
        </List.Item>
      ))}
    </List>
  );
}

function ClientRow({ client }: { client: OAuthClient }) {
  const remove = useDeleteClient();
  const own = client.clientId === CONSOLE_CLIENT_ID;
  return (
    <Table.Tr>
      <Table.Td>
        <Stack gap={2}>
          <Text size="sm" fw={600}>
            {client.name}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {client.clientId}
          </Text>
        </Stack>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{client.public ? 'Public' : 'Confidential'}</Text>
      </Table.Td>
      <Table.Td>
        <UriList uris={client.redirectUris} />
      </Table.Td>
      <Table.Td>
        <UriList uris={client.postLogoutRedirectUris} />
      </Table.Td>
      <Table.Td>{when(client.createdAt)}</Table.Td>
      <Table.Td>
        {own ? (
          <Text size="sm" c="dimmed">
            The console’s own client (read-only)
          </Text>
        ) : (
          <Group gap="xs" wrap="nowrap">
            <EditUris key={client.updatedAt} client={client} />
            <ConfirmAction
              label={`Delete ${client.name}`}
              title={`Delete the client ${client.name}?`}
              message="Every token issued to it is revoked, and its users are signed out of it. This cannot be undone."
              size="xs"
              onConfirm={() => remove.mutateAsync(client.clientId)}
            />
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** OAuth / OpenID Connect clients (bots' clients are on the Bots tab). */
export function ClientsPanel() {
  const clients = useQuery(clientsQuery());
  const [created, setCreated] = useState<NewOAuthClient | null>(null);
  const signInClients = (clients.data ?? []).filter((client) => client.botUserId === null);
  return (
    <Stack gap="md">
      <Paper withBorder p="md">
        <Stack gap="xs">
          <Title order={2} size="h4">
            Sign-in clients
          </Title>
          <Text size="sm">Apps that sign users in with OpenID Connect. A confidential client gets a secret, shown once when it is created.</Text>
          <CreateClientForm onCreated={setCreated} />
        </Stack>
      </Paper>
      <ErrorNote error={clients.error} title="The clients could not be read" />
      {clients.isLoading ? (
        <Center p="md">
          <Loader aria-label="Loading clients" />
        </Center>
      ) : (
        <Table.ScrollContainer minWidth={960}>
          <Table striped captionSide="top">
            <Table.Caption>OAuth clients</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Client</Table.Th>
                <Table.Th>Type</Table.Th>
                <Table.Th>Redirect URIs</Table.Th>
                <Table.Th>Post-logout URIs</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {signInClients.map((client) => (
                <ClientRow key={client.clientId} client={client} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {created && (
        <ShownOnce
          title={`Client ${created.name} created`}
          intro={created.public ? 'A public client has no secret: it signs in with PKCE.' : 'The app authenticates with this client id and secret.'}
          values={[{ label: 'client id', value: created.clientId }]}
          secrets={created.clientSecret === null ? [] : [{ label: 'client secret', value: created.clientSecret }]}
          onClose={() => setCreated(null)}
        />
      )}
    </Stack>
  );
}
