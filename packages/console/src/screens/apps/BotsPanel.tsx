import { Badge, Button, Center, Group, Loader, Modal, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormCard } from '../../components/FormCard.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { when } from '../channels/format.js';
import type { OAuthClient, WebhookDelivery } from '../../api/types.js';
import { clientsQuery, deliveriesQuery, useCreateBot, useIssueBotToken, useSetBotWebhook } from './api.js';
import { type Secret, ShownOnce } from './ShownOnce.js';

interface Shown {
  title: string;
  intro: string;
  values: Secret[];
  secrets: Secret[];
}

const TOKEN_LIFETIMES = [
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '2592000', label: '30 days' },
  { value: '31536000', label: '1 year' },
];

const STATE_COLORS: Record<WebhookDelivery['state'], string> = { pending: 'orange', delivered: 'green', 'given up': 'red' };

function CreateBotForm({ onCreated }: { onCreated: (shown: Shown) => void }) {
  const [displayName, setDisplayName] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const create = useCreateBot({
    onSuccess: (bot) => {
      setDisplayName('');
      setWebhookUrl('');
      onCreated({
        title: `Bot ${bot.displayName} created`,
        intro: 'The bot gets its tokens at /oauth/token with grant_type=client_credentials&scope=bot and these credentials.',
        values: [
          { label: 'bot user id', value: bot.userId },
          { label: 'client id', value: bot.clientId },
        ],
        secrets: [{ label: 'client secret', value: bot.clientSecret }],
      });
    },
  });
  return (
    <FormCard title="Create a bot" onSubmit={() => create.mutate({ displayName, webhookUrl })}>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput
          label="Bot name"
          required
          value={displayName}
          onChange={(event) => setDisplayName(event.currentTarget.value)}
          style={{ flex: '1 1 12rem' }}
        />
        <TextInput
          label="Webhook URL"
          description="Where its events are posted (http or https); optional"
          value={webhookUrl}
          onChange={(event) => setWebhookUrl(event.currentTarget.value)}
          style={{ flex: '2 1 16rem' }}
        />
      </Group>
      <ErrorNote error={create.error} title="The bot was not created" />
      <Group justify="flex-end">
        <Button type="submit" loading={create.isPending} disabled={displayName.trim() === ''}>
          Create bot
        </Button>
      </Group>
    </FormCard>
  );
}

function IssueToken({ bot, onIssued }: { bot: OAuthClient & { botUserId: string }; onIssued: (shown: Shown) => void }) {
  const [open, setOpen] = useState(false);
  const [lifetime, setLifetime] = useState('86400');
  const issue = useIssueBotToken(bot.botUserId, {
    onSuccess: (token) => {
      setOpen(false);
      onIssued({
        title: `Token for ${bot.name}`,
        intro: `A bot token for the bot API, valid for ${TOKEN_LIFETIMES.find((item) => item.value === lifetime)?.label ?? `${token.expiresIn} seconds`}.`,
        values: [],
        secrets: [{ label: 'token', value: token.accessToken }],
      });
    },
  });
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setOpen(true)} aria-label={`Issue token for ${bot.name}`}>
        Issue token
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Issue a token for ${bot.name}`}>
        <Stack gap="sm">
          <Select label="Valid for" data={TOKEN_LIFETIMES} value={lifetime} onChange={(value) => setLifetime(value ?? '86400')} allowDeselect={false} />
          <ErrorNote error={issue.error} title="No token was issued" />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button onClick={() => issue.mutate(Number(lifetime))} loading={issue.isPending}>
              Issue token
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

function ChangeWebhook({ bot }: { bot: OAuthClient & { botUserId: string } }) {
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  const save = useSetBotWebhook(bot.botUserId, {
    onSuccess: (answer) => {
      setSaved(answer.webhookUrl);
      setOpen(false);
    },
  });
  return (
    <>
      <Button
        size="xs"
        variant="default"
        onClick={() => {
          save.reset();
          setOpen(true);
        }}
        aria-label={`Change webhook of ${bot.name}`}
      >
        Change webhook
      </Button>
      {saved !== null && (
        <Text size="xs" role="status">
          Webhook: {saved}
        </Text>
      )}
      <Modal opened={open} onClose={() => setOpen(false)} title={`Webhook of ${bot.name}`}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate(url);
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Webhook URL"
              description="Empty: no webhooks. Deliveries still pending go to the new URL."
              value={url}
              onChange={(event) => setUrl(event.currentTarget.value)}
              data-autofocus
            />
            <ErrorNote error={save.error} title="The webhook URL was not changed" />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending}>
                Save webhook
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** The bot's newest webhook deliveries: how each went, attempts so far, and when the next retry is due. */
function DeliveryLog({ bot }: { bot: OAuthClient & { botUserId: string } }) {
  const deliveries = useQuery(deliveriesQuery(bot.botUserId));
  if (deliveries.isLoading) {
    return (
      <Center p="sm">
        <Loader size="sm" aria-label={`Loading the deliveries of ${bot.name}`} />
      </Center>
    );
  }
  const rows = deliveries.data ?? [];
  return (
    <Stack gap="xs">
      <ErrorNote error={deliveries.error} title="The deliveries could not be read" />
      <Group justify="flex-end">
        <Button size="xs" variant="subtle" onClick={() => void deliveries.refetch()} loading={deliveries.isRefetching}>
          Refresh deliveries
        </Button>
      </Group>
      <Table.ScrollContainer minWidth={720}>
        <Table striped captionSide="top" fz="sm">
          <Table.Caption>Webhook deliveries of {bot.name}, newest first</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Event</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last error</Table.Th>
              <Table.Th>Next retry</Table.Th>
              <Table.Th>Finished</Table.Th>
              <Table.Th>Scheduled</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((delivery) => (
              <Table.Tr key={delivery.eventId}>
                <Table.Td>{delivery.eventId}</Table.Td>
                <Table.Td>
                  <Badge color={STATE_COLORS[delivery.state]} variant="light">
                    {delivery.state}
                  </Badge>
                </Table.Td>
                <Table.Td>{delivery.attempts}</Table.Td>
                <Table.Td>{delivery.lastError ?? '—'}</Table.Td>
                <Table.Td>{when(delivery.nextAttemptAt)}</Table.Td>
                <Table.Td>{when(delivery.deliveredAt ?? delivery.gaveUpAt)}</Table.Td>
                <Table.Td>{when(delivery.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {rows.length === 0 && !deliveries.error && (
        <Text size="sm" c="dimmed">
          No deliveries yet.
        </Text>
      )}
    </Stack>
  );
}

function BotCard({ bot, onShown }: { bot: OAuthClient & { botUserId: string }; onShown: (shown: Shown) => void }) {
  const [logOpen, setLogOpen] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-label={`Bot ${bot.name}`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Stack gap={0}>
            <Title order={3} size="h5">
              {bot.name}
            </Title>
            <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              User {bot.botUserId} · client {bot.clientId} · created {when(bot.createdAt)}
            </Text>
          </Stack>
          <Group gap="xs" wrap="wrap">
            <IssueToken bot={bot} onIssued={onShown} />
            <ChangeWebhook bot={bot} />
            <Button size="xs" variant="default" onClick={() => setLogOpen((open) => !open)} aria-expanded={logOpen}>
              {logOpen ? 'Hide deliveries' : 'Webhook deliveries'}
            </Button>
          </Group>
        </Group>
        {logOpen && <DeliveryLog bot={bot} />}
      </Stack>
    </Paper>
  );
}

const isBot = (client: OAuthClient): client is OAuthClient & { botUserId: string } => client.botUserId !== null;

/** Bots: their clients (from the OAuth client list), tokens, webhook URL and webhook deliveries. */
export function BotsPanel() {
  const clients = useQuery(clientsQuery());
  const [shown, setShown] = useState<Shown | null>(null);
  const bots = (clients.data ?? []).filter(isBot);
  return (
    <Stack gap="md">
      <CreateBotForm onCreated={setShown} />
      <ErrorNote error={clients.error} title="The bots could not be read" />
      {clients.isLoading ? (
        <Center p="md">
          <Loader aria-label="Loading bots" />
        </Center>
      ) : bots.length === 0 ? (
        !clients.error && <Text c="dimmed">No bots yet.</Text>
      ) : (
        bots.map((bot) => <BotCard key={bot.clientId} bot={bot} onShown={setShown} />)
      )}
      {shown && <ShownOnce title={shown.title} intro={shown.intro} values={shown.values} secrets={shown.secrets} onClose={() => setShown(null)} />}
    </Stack>
  );
}
