import { Anchor, Badge, Group, Paper, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { type InfiniteData, type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { Page } from '../../components/Page.js';
import type { KeysetPage } from '../../components/PagedTable.js';
import type { Channel, ChannelRow } from '../../api/types.js';
import { channelKeys, channelQuery } from './api.js';
import { ChannelSettings } from './ChannelSettings.js';
import { when } from './format.js';
import { MembersPanel } from './MembersPanel.js';
import { MessagesPanel } from './MessagesPanel.js';

/** The channel as a list already loaded it: shown while (or when) the one-channel read fails. */
function cachedChannel(queryClient: QueryClient, channelId: string): Channel | undefined {
  const lists = queryClient.getQueriesData<InfiniteData<KeysetPage<ChannelRow>>>({ queryKey: [...channelKeys.all, 'list'] });
  for (const [, data] of lists) {
    for (const page of data?.pages ?? []) {
      const row = page.items.find((item) => item.channel.channelId === channelId);
      if (row) return row.channel;
    }
  }
  return undefined;
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </Stack>
  );
}

function ChannelDetails({ channel }: { channel: Channel }) {
  return (
    <Paper withBorder p="md">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        <Fact label="Channel ID">{channel.channelId}</Fact>
        <Fact label="State">
          {channel.isClosed ? (
            <Badge color="gray">Closed</Badge>
          ) : channel.isMuted ? (
            <Badge color="orange">Muted{channel.muteTimeout ? ` until ${when(channel.muteTimeout)}` : ''}</Badge>
          ) : (
            <Badge color="green">Open</Badge>
          )}
        </Fact>
        <Fact label="Members">{channel.memberCount}</Fact>
        <Fact label="Messages">{channel.messageCount}</Fact>
        <Fact label="Tags">{channel.tags.length === 0 ? '—' : channel.tags.join(', ')}</Fact>
        <Fact label="Created">{when(channel.createdAt)}</Fact>
        <Fact label="Last activity">{when(channel.lastActivity)}</Fact>
        <Fact label="Type">{channel.type}</Fact>
      </SimpleGrid>
    </Paper>
  );
}

/** /channels/:channelId: the channel's details, its messages, its members and its settings. */
export function ChannelPage({ channelId }: { channelId: string }) {
  const queryClient = useQueryClient();
  const { can } = useSession();
  const read = useQuery(channelQuery(channelId));
  const channel = read.data ?? cachedChannel(queryClient, channelId);
  const closed = channel?.isClosed === true;
  const mayChangeSettings = ['EDIT_CHANNEL', 'MUTE_CHANNEL', 'CLOSE_CHANNEL'].some((permission) => can(permission));

  return (
    <Page
      title={channel?.displayName || channelId}
      actions={
        <Anchor component={Link} href="/channels">
          All channels
        </Anchor>
      }
    >
      {channel ? <ChannelDetails channel={channel} /> : <ErrorNote error={read.error} title="The channel could not be read" />}
      <Tabs defaultValue="messages" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="messages">Messages</Tabs.Tab>
          <Tabs.Tab value="members">Members</Tabs.Tab>
          {mayChangeSettings && <Tabs.Tab value="settings">Settings</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="messages" pt="md">
          <MessagesPanel channelId={channelId} closed={closed} />
        </Tabs.Panel>
        <Tabs.Panel value="members" pt="md">
          <MembersPanel channelId={channelId} closed={closed} />
        </Tabs.Panel>
        {mayChangeSettings && (
          <Tabs.Panel value="settings" pt="md">
            <ChannelSettings channelId={channelId} channel={channel} />
          </Tabs.Panel>
        )}
      </Tabs>
      {closed && (
        <Group>
          <Text size="sm" c="dimmed">
            This channel is closed: its members left it and its messages are deleted.
          </Text>
        </Group>
      )}
    </Page>
  );
}
