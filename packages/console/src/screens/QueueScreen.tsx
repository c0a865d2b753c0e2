import { Badge, Group, SegmentedControl, Tabs } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useModerationSummary } from '../api/moderation.js';
import { Page } from '../components/Page.js';
import { queueKeys } from './queue/api.js';
import { FilteredOpenMessages } from './queue/FilteredOpenMessages.js';
import { OpenUsers } from './queue/OpenList.js';
import { ReviewedList } from './queue/ReviewedList.js';

type Status = 'open' | 'reviewed';
type Kind = 'messages' | 'users';

/**
 * Refetches the queue whenever the polled summary changes (a new flag, a decision taken elsewhere):
 * that is how the queue follows other moderators and new reports without a socket.
 */
function useLiveQueue() {
  const summary = useModerationSummary(true);
  const queryClient = useQueryClient();
  const fingerprint = summary.data ? `${summary.data.openMessages}/${summary.data.openUsers}/${summary.data.latestFlagAt ?? ''}` : null;
  const [seen, setSeen] = useState<string | null>(null);
  useEffect(() => {
    if (fingerprint === null || fingerprint === seen) return;
    if (seen !== null) void queryClient.invalidateQueries({ queryKey: queueKeys.all });
    setSeen(fingerprint);
  }, [fingerprint, seen, queryClient]);
  return summary.data;
}

function Count({ value }: { value: number | undefined }) {
  if (value === undefined) return null;
  return (
    <Badge size="sm" variant="light" color={value > 0 ? 'red' : 'gray'} ml={6}>
      {value}
    </Badge>
  );
}

export function QueueScreen() {
  const summary = useLiveQueue();
  const [status, setStatus] = useState<Status>('open');
  const [kind, setKind] = useState<Kind>('messages');
  const open = summary ? summary.openMessages + summary.openUsers : undefined;

  return (
    <Page title="Moderation queue">
      <Tabs value={status} onChange={(value) => value && setStatus(value as Status)} keepMounted={false}>
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Tabs.List>
            <Tabs.Tab value="open">
              To review
              <Count value={open} />
            </Tabs.Tab>
            <Tabs.Tab value="reviewed">Reviewed</Tabs.Tab>
          </Tabs.List>
          <SegmentedControl
            aria-label="Show flagged"
            value={kind}
            onChange={(value) => setKind(value as Kind)}
            data={[
              { value: 'messages', label: `Messages${summary ? ` (${summary.openMessages})` : ''}` },
              { value: 'users', label: `Users${summary ? ` (${summary.openUsers})` : ''}` },
            ]}
          />
        </Group>
        <Tabs.Panel value="open" pt="md">
          {kind === 'messages' ? <FilteredOpenMessages /> : <OpenUsers />}
        </Tabs.Panel>
        <Tabs.Panel value="reviewed" pt="md">
          <ReviewedList targetType={kind === 'messages' ? 'message' : 'user'} />
        </Tabs.Panel>
      </Tabs>
    </Page>
  );
}
