import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useModerationSummary } from '../api/moderation.js';
import { AuditTable } from '../components/AuditTable.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { Page } from '../components/Page.js';
import { formatTime } from '../components/time.js';
import { ActivityCharts } from './overview/ActivityCharts.js';
import { instanceStatusQuery, networkStatsQuery, readinessQuery } from './overview/api.js';

function Tile({ title, children }: { title: string; children: ReactNode }) {
  const id = `tile-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Card withBorder padding="md" component="section" aria-labelledby={id}>
      <Stack gap={6}>
        <Title order={2} size="h5" id={id}>
          {title}
        </Title>
        {children}
      </Stack>
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600}>
        {value}
      </Text>
    </Group>
  );
}

const figure = (value: number | undefined) => (value === undefined ? '…' : value.toLocaleString());

/** GET /api/v2/status, shared by the health and instance tiles (one request per refresh). */
const useInstanceStatus = () => useQuery(instanceStatusQuery());

function Health() {
  const ready = useQuery(readinessQuery());
  const status = useInstanceStatus();
  return (
    <Tile title="Health">
      <ErrorNote error={ready.error} />
      {ready.data && (
        <>
          <Badge color={ready.data.ready ? 'green' : 'red'} size="lg" variant="light">
            {ready.data.ready ? 'Ready' : 'Not ready'}
          </Badge>
          {ready.data.message && <Text size="sm">{ready.data.message}</Text>}
          {Object.entries(ready.data.checks).map(([name, state]) => (
            <Figure key={name} label={name === 'database' ? 'Database' : name === 'redis' ? 'Redis' : name} value={state === 'ok' ? 'ok' : 'unavailable'} />
          ))}
        </>
      )}
      <Figure label="Version" value={status.data?.version ?? (status.error ? 'unknown' : '…')} />
    </Tile>
  );
}

function Runtime() {
  const status = useInstanceStatus();
  return (
    <Tile title="This instance">
      <ErrorNote error={status.error} />
      <Figure label="Outbox lag (events)" value={figure(status.data?.outboxLag)} />
      <Figure label="Open sockets" value={figure(status.data?.sockets)} />
      <Figure label="Started" value={status.data ? formatTime(status.data.startedAt) : '…'} />
      <Text size="xs" c="dimmed">
        Behind a load balancer these figures are those of the instance that answered.
      </Text>
    </Tile>
  );
}

function Counts() {
  const summary = useModerationSummary(true);
  const totals = useQuery(networkStatsQuery());
  return (
    <Tile title="Counts">
      <ErrorNote error={totals.error ?? summary.error} />
      <Figure label="Users" value={figure(totals.data?.users)} />
      <Figure label="Channels" value={figure(totals.data?.channels)} />
      <Figure label="Messages" value={figure(totals.data?.messages)} />
      <Figure label="Flagged messages to review" value={figure(summary.data?.openMessages)} />
      <Figure label="Flagged users to review" value={figure(summary.data?.openUsers)} />
      <Figure label="Latest flag" value={formatTime(summary.data?.latestFlagAt)} />
    </Tile>
  );
}

/**
 * The network at a glance: health and version, this instance's figures, totals and open moderation work,
 * the last 30 days as charts, recent admin actions.
 */
export function OverviewScreen() {
  return (
    <Page title="Overview">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        <Health />
        <Runtime />
        <Counts />
      </SimpleGrid>
      <ActivityCharts />
      <AuditTable caption="Recent administrative actions" limit={15} />
    </Page>
  );
}
