import { Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { type RefObject, useRef, useState } from 'react';
import { useSession } from '../../auth/session.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { Duration, durationLabel } from '../../components/Duration.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { type Column, PagedTable, useKeysetPages } from '../../components/PagedTable.js';
import type { MemberRow } from '../../api/types.js';
import { idsOf, type MemberChange, memberPages, useChangeMembers } from './api.js';
import { mutePeriodOf, when } from './format.js';

function stateOf({ channelUser }: MemberRow) {
  if (channelUser.isBanned) return <Badge color="red">Banned</Badge>;
  if (channelUser.isMuted) return <Badge color="orange">Muted{channelUser.muteTimeout ? ` until ${when(channelUser.muteTimeout)}` : ''}</Badge>;
  return <Badge color="green">Member</Badge>;
}

function AddMembers({ channelId }: { channelId: string }) {
  const [text, setText] = useState('');
  const add = useChangeMembers(channelId, { onSuccess: () => setText('') });
  const userIds = idsOf(text);
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate({ action: 'add', userIds });
        }}
      >
        <Stack gap="xs">
          <Title order={2} size="h4">
            Add members
          </Title>
          <Group align="flex-end" gap="xs">
            <TextInput
              label="User IDs to add"
              description="Separate several with commas or spaces"
              value={text}
              onChange={(event) => setText(event.currentTarget.value)}
              style={{ flex: '1 1 14rem' }}
            />
            <Button type="submit" loading={add.isPending} disabled={userIds.length === 0}>
              Add members
            </Button>
          </Group>
          <ErrorNote error={add.error} title="The members were not added" />
        </Stack>
      </form>
    </Paper>
  );
}

interface MemberActionsProps {
  channelId: string;
  userId: string;
  onUserId: (userId: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
}

/** A change to a member, with the sentence shown once it is done. */
type Act = MemberChange & { says: string };

/** Mute, unmute, ban, unban and remove one user, by id: a row's "Manage" fills the id in. */
function MemberActions({ channelId, userId, onUserId, inputRef }: MemberActionsProps) {
  const { can } = useSession();
  const edits = can('EDIT_CHANNEL');
  const [minutes, setMinutes] = useState<number | undefined>(60);
  const [banMinutes, setBanMinutes] = useState<number | undefined>(undefined);
  const [done, setDone] = useState('');
  const target = userId.trim();
  const act = useChangeMembers<Act>(channelId, { onMutate: () => setDone(''), onSuccess: (_answer, { says }) => setDone(says) });
  // The confirmed ones (ban, remove): their errors show in their dialogs, not beside the buttons.
  const confirmed = useChangeMembers<Act>(channelId, { onSuccess: (_answer, { says }) => setDone(says) });
  const mayMute = edits || can('MUTE_USER_INSIDE_CHANNEL');
  const mayBan = edits || can('BAN_USER_FROM_CHANNEL');
  const mayRemove = edits || can('REMOVE_CHANNEL_USER');
  const none = target === '';

  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Act on a member
        </Title>
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            ref={inputRef}
            label="Member user ID"
            value={userId}
            onChange={(event) => onUserId(event.currentTarget.value)}
            style={{ flex: '1 1 12rem' }}
          />
          {mayMute && <Duration label="Mute for" value={minutes} onChange={setMinutes} />}
          {mayBan && <Duration label="Ban for" value={banMinutes} onChange={setBanMinutes} />}
        </Group>
        <Group gap="xs" wrap="wrap">
          {mayMute && (
            <>
              <Button
                disabled={none}
                onClick={() =>
                  act.mutate({ action: 'mute', userIds: [target], mutePeriod: mutePeriodOf(minutes), says: `${target} is muted (${durationLabel(minutes)}).` })
                }
              >
                Mute member
              </Button>
              <Button
                variant="default"
                disabled={none}
                onClick={() => act.mutate({ action: 'mute', userIds: [target], mutePeriod: 0, says: `${target} is unmuted.` })}
              >
                Lift mute
              </Button>
            </>
          )}
          {mayBan && (
            <>
              <ConfirmAction
                label="Ban from channel"
                title={`Ban ${target} from this channel?`}
                message={
                  banMinutes === undefined
                    ? 'They leave the channel and cannot rejoin until the ban is lifted.'
                    : `They leave the channel and cannot rejoin for ${durationLabel(banMinutes)}: the ban is lifted by itself within a minute of its end, or earlier by hand.`
                }
                disabled={none}
                onConfirm={() =>
                  confirmed.mutateAsync({
                    action: 'ban',
                    userIds: [target],
                    minutes: banMinutes,
                    says: `${target} is banned from the channel (${durationLabel(banMinutes)}).`,
                  })
                }
              />
              <Button variant="default" disabled={none} onClick={() => act.mutate({ action: 'unban', userIds: [target], says: `${target} is unbanned.` })}>
                Lift ban
              </Button>
            </>
          )}
          {mayRemove && (
            <ConfirmAction
              label="Remove from channel"
              title={`Remove ${target} from this channel?`}
              message="They leave the channel; they can be added again."
              disabled={none}
              onConfirm={() => confirmed.mutateAsync({ action: 'remove', userIds: [target], says: `${target} is removed from the channel.` })}
            />
          )}
        </Group>
        {done !== '' && (
          <Text size="sm" c="green" role="status">
            {done}
          </Text>
        )}
        <ErrorNote error={act.error} />
      </Stack>
    </Paper>
  );
}

/** The channel's members, and the member actions the person holds the rights for. */
export function MembersPanel({ channelId, closed }: { channelId: string; closed: boolean }) {
  const { can } = useSession();
  const [userId, setUserId] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const pages = useKeysetPages(memberPages(channelId));
  const edits = can('EDIT_CHANNEL');
  const mayAct = ['MUTE_USER_INSIDE_CHANNEL', 'BAN_USER_FROM_CHANNEL', 'REMOVE_CHANNEL_USER'].some((permission) => can(permission)) || edits;
  const manage = (id: string) => {
    setUserId(id);
    inputRef.current?.focus();
  };

  const columns: Array<Column<MemberRow>> = [
    {
      header: 'Member',
      cell: (row) => (
        <Stack gap={0}>
          <Text size="sm">{row.user?.displayName || row.channelUser.userId}</Text>
          <Text size="xs" c="dimmed">
            {row.channelUser.userId}
          </Text>
        </Stack>
      ),
    },
    { header: 'State', cell: stateOf },
    { header: 'Roles', cell: (row) => (row.channelUser.roles.length === 0 ? '—' : row.channelUser.roles.join(', ')) },
    { header: 'Joined', cell: (row) => when(row.channelUser.createdAt) },
    ...(mayAct && !closed
      ? [
          {
            header: 'Actions',
            cell: (row: MemberRow) => (
              <Button size="xs" variant="default" onClick={() => manage(row.channelUser.userId)} aria-label={`Manage ${row.channelUser.userId}`}>
                Manage
              </Button>
            ),
          },
        ]
      : []),
  ];

  return (
    <Stack gap="md">
      {!closed && (edits || can('ADD_CHANNEL_USER')) && <AddMembers channelId={channelId} />}
      {!closed && mayAct && <MemberActions channelId={channelId} userId={userId} onUserId={setUserId} inputRef={inputRef} />}
      <PagedTable caption="Members" columns={columns} rowKey={(row) => row.channelUser.userId} pages={pages} empty="No members." />
    </Stack>
  );
}
