import { Badge, Button, Group, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { AdminUser } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { Duration, durationLabel } from '../../components/Duration.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useBanUser, useClearFlags, useUnbanUser } from './api.js';

/** A user's global ban, for a time or until lifted, and their flags. */
export function ModerationPanel({ user }: { user: AdminUser }) {
  const { can } = useSession();
  const [unbanning, setUnbanning] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [banMinutes, setBanMinutes] = useState<number | undefined>(undefined);
  const banUser = useBanUser(user.userId, {
    onSuccess: (_answer, minutes) => notifications.show({ color: 'green', message: `${user.userId} is banned globally (${durationLabel(minutes)}).` }),
  });
  const unbanUser = useUnbanUser(user.userId, {
    onSuccess: () => notifications.show({ color: 'green', message: `${user.userId} is no longer banned.` }),
  });
  const clearUserFlags = useClearFlags(user.userId);

  const unban = async () => {
    setUnbanning(true);
    setError(null);
    try {
      await unbanUser.mutateAsync();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setUnbanning(false);
    }
  };
  const clearFlags = async () => {
    await clearUserFlags.mutateAsync();
    notifications.show({ color: 'green', message: 'Flags cleared.' });
  };

  return (
    <Stack gap="md" maw={640}>
      <Title order={2} size="h4">
        Moderation
      </Title>
      <Group gap="xs">
        <Badge color={user.isGlobalBan ? 'red' : 'green'} variant="light">
          {user.isGlobalBan ? 'Banned globally' : 'Not banned'}
        </Badge>
        <Badge color={user.flagCount > 0 ? 'orange' : 'gray'} variant="light">
          {user.flagCount} {user.flagCount === 1 ? 'flag' : 'flags'}
        </Badge>
      </Group>
      <ErrorNote error={error} />
      {can('BAN_USER') && (
        <Group gap="xs" align="flex-end">
          {user.isGlobalBan ? (
            <Button variant="default" onClick={() => void unban()} loading={unbanning}>
              Lift ban
            </Button>
          ) : (
            <>
              <Duration label="Ban for" value={banMinutes} onChange={setBanMinutes} />
              <ConfirmAction
                label="Ban globally"
                title={`Ban ${user.userId} globally?`}
                message={
                  banMinutes === undefined
                    ? 'The user is banned from the whole network until the ban is lifted, and every session and token they hold is revoked.'
                    : `The user is banned from the whole network for ${durationLabel(banMinutes)}, and every session and token they hold is revoked.`
                }
                onConfirm={() => banUser.mutateAsync(banMinutes)}
              />
            </>
          )}
        </Group>
      )}
      <Text size="sm" c="dimmed">
        A ban for a time is lifted by itself within a minute of its end; a permanent one lasts until it is lifted. Lifting a ban, or banning again, replaces the
        end of a timed one.
      </Text>
      <Group gap="xs">
        <ConfirmAction
          label="Clear flags"
          title={`Clear every flag on ${user.userId}?`}
          message="The flag count goes back to 0."
          color="orange"
          disabled={user.flagCount === 0}
          onConfirm={clearFlags}
        />
      </Group>
    </Stack>
  );
}
