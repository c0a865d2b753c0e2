import { Button, Group, NumberInput, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { useSession } from '../../auth/session.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { Duration, durationLabel } from '../../components/Duration.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import type { Channel } from '../../api/types.js';
import { retentionQuery, useCloseChannel, useMuteChannel, useRenameChannel, useSetRetention } from './api.js';
import { mutePeriodOf, when } from './format.js';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {children}
      </Stack>
    </Paper>
  );
}

function Rename({ channelId, current }: { channelId: string; current: string }) {
  const [displayName, setDisplayName] = useState(current);
  const rename = useRenameChannel(channelId);
  return (
    <Section title="Display name">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          rename.mutate(displayName.trim());
        }}
      >
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Display name"
            value={displayName}
            onChange={(event) => setDisplayName(event.currentTarget.value)}
            maxLength={200}
            style={{ flex: '1 1 14rem' }}
          />
          <Button type="submit" loading={rename.isPending}>
            Rename channel
          </Button>
        </Group>
      </form>
      {rename.isSuccess && !rename.isPending && (
        <Text size="sm" c="green" role="status">
          Renamed.
        </Text>
      )}
      <ErrorNote error={rename.error} title="The channel was not renamed" />
    </Section>
  );
}

function MuteChannel({ channelId, channel }: { channelId: string; channel: Channel | undefined }) {
  const [minutes, setMinutes] = useState<number | undefined>(60);
  const [done, setDone] = useState('');
  const mute = useMuteChannel(channelId, {
    onMutate: () => setDone(''),
    onSuccess: (_answer, period) => setDone(period === 0 ? 'The channel mute is lifted.' : `The channel is muted (${durationLabel(minutes)}).`),
  });
  return (
    <Section title="Mute the channel">
      <Text size="sm">
        {channel?.isMuted ? `Muted${channel.muteTimeout ? ` until ${when(channel.muteTimeout)}` : ''}: nobody can send.` : 'Not muted: members can send.'}
      </Text>
      <Group align="flex-end" gap="xs">
        <Duration label="Mute for" value={minutes} onChange={setMinutes} />
        <Button onClick={() => mute.mutate(mutePeriodOf(minutes))} loading={mute.isPending && mute.variables !== 0}>
          Mute channel
        </Button>
        <Button variant="default" onClick={() => mute.mutate(0)} loading={mute.isPending && mute.variables === 0}>
          Lift channel mute
        </Button>
      </Group>
      {done !== '' && (
        <Text size="sm" c="green" role="status">
          {done}
        </Text>
      )}
      <ErrorNote error={mute.error} title="The mute did not change" />
    </Section>
  );
}

function RetentionSetting({ channelId }: { channelId: string }) {
  const read = useQuery(retentionQuery(channelId));
  const [days, setDays] = useState<string | number>('');
  const save = useSetRetention(channelId, { onSuccess: () => setDays('') });
  const retention = read.data;
  const effective = retention ? (retention.effectiveDays === 0 ? 'kept for ever' : `deleted after ${retention.effectiveDays} days`) : '…';
  const own = retention?.retentionDays;
  return (
    <Section title="Message retention">
      <ErrorNote error={read.error} title="The retention could not be read" />
      <Text size="sm">
        Messages are {effective}
        {retention ? (own === null ? ' (the server default).' : ' (this channel’s own setting).') : ''}
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (typeof days === 'number') save.mutate(days);
        }}
      >
        <Group align="flex-end" gap="xs">
          <NumberInput
            label="Keep messages for (days)"
            description="0 keeps them for ever"
            min={0}
            max={36500}
            allowDecimal={false}
            value={days}
            onChange={setDays}
            placeholder={own === null || own === undefined ? '' : String(own)}
            style={{ flex: '1 1 12rem' }}
          />
          <Button type="submit" loading={save.isPending && save.variables !== null} disabled={typeof days !== 'number'}>
            Save retention
          </Button>
          <Button variant="default" onClick={() => save.mutate(null)} loading={save.isPending && save.variables === null} disabled={own === null}>
            Use server default
          </Button>
        </Group>
      </form>
      <ErrorNote error={save.error} title="The retention was not saved" />
    </Section>
  );
}

/** The channel's settings: name, mute, retention and close, each shown to those who hold its right. */
export function ChannelSettings({ channelId, channel }: { channelId: string; channel: Channel | undefined }) {
  const { can, isNetworkAdmin } = useSession();
  // Closed here: shown at once, whether or not the channel record is read again.
  const [closedHere, setClosedHere] = useState(false);
  const close = useCloseChannel(channelId, { onSuccess: () => setClosedHere(true) });
  const closed = channel?.isClosed === true || closedHere;
  const edits = can('EDIT_CHANNEL');
  return (
    <Stack gap="md">
      {edits && !closed && <Rename key={channel?.displayName ?? ''} channelId={channelId} current={channel?.displayName ?? ''} />}
      {(edits || can('MUTE_CHANNEL')) && !closed && <MuteChannel channelId={channelId} channel={channel} />}
      {isNetworkAdmin && <RetentionSetting channelId={channelId} />}
      {(edits || can('CLOSE_CHANNEL')) && !closed && (
        <Section title="Close the channel">
          <Text size="sm">Closing is for good: every member leaves the channel and all its messages are deleted.</Text>
          <Group>
            <ConfirmAction
              label="Close channel"
              title={`Close ${channel?.displayName || channelId}?`}
              message="Every member leaves the channel and all its messages are deleted. This cannot be undone."
              onConfirm={() => close.mutateAsync()}
            />
          </Group>
        </Section>
      )}
      {closedHere && (
        <Text size="sm" role="status">
          The channel is closed: its members left it and its messages are deleted.
        </Text>
      )}
    </Stack>
  );
}
