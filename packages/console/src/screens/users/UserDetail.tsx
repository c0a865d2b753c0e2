import { Anchor, Badge, Center, Group, Loader, Stack, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { serverUrl } from '../../api/base.js';
import { AuthedAvatar } from '../../components/AuthedMedia.js';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { Page } from '../../components/Page.js';
import { formatTime } from '../../components/time.js';
import { CredentialsPanel } from './CredentialsPanel.js';
import { HistoryPanel } from './HistoryPanel.js';
import { ModerationPanel } from './ModerationPanel.js';
import { PasswordForm } from './PasswordForm.js';
import { PasswordResetLink } from './PasswordResetLink.js';
import { ProfileForm } from './ProfileForm.js';
import { userQuery } from './api.js';

/** /users/:userId: one user's profile, access, moderation and history. */
export function UserDetail({ userId }: { userId: string }) {
  // Passwords, sessions and tokens are network admins' (each admin route declares who may call it); the history shows each reader what they may read.
  const { isNetworkAdmin } = useSession();
  const user = useQuery(userQuery(userId));
  const back = (
    <Anchor component={Link} href="/users" size="sm">
      All users
    </Anchor>
  );

  if (user.isPending) {
    return (
      <Center p="lg">
        <Loader aria-label="Loading the user" />
      </Center>
    );
  }
  if (user.error || user.data === null) {
    return (
      <Page title={userId} actions={back}>
        {user.error ? <ErrorNote error={user.error} title="The user could not be loaded" /> : <Text>There is no user with the id “{userId}”.</Text>}
      </Page>
    );
  }

  const record = user.data;
  return (
    <Page title={record.displayName || record.userId} actions={back}>
      <Group gap="sm">
        <AuthedAvatar
          url={record.avatar ? serverUrl(`/file/view/${encodeURIComponent(record.avatar)}?size=small`) : null}
          name={record.displayName || record.userId}
          size="lg"
        />
        <Stack gap={2}>
          <Text size="sm">
            {record.userId}
            {record.username && record.username !== record.userId ? ` · signs in as ${record.username}` : ''}
          </Text>
          <Text size="xs" c="dimmed">
            Created {formatTime(record.createdAt)} · updated {formatTime(record.updatedAt)}
          </Text>
        </Stack>
        {record.isGlobalBan && <Badge color="red">Banned globally</Badge>}
        {record.flagCount > 0 && <Badge color="orange">{`${record.flagCount} ${record.flagCount === 1 ? 'flag' : 'flags'}`}</Badge>}
      </Group>
      <Tabs defaultValue="profile" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="profile">Profile</Tabs.Tab>
          {isNetworkAdmin && <Tabs.Tab value="access">Access</Tabs.Tab>}
          <Tabs.Tab value="moderation">Moderation</Tabs.Tab>
          <Tabs.Tab value="history">History</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="profile" pt="md">
          <ProfileForm key={record.updatedAt} user={record} />
        </Tabs.Panel>
        <Tabs.Panel value="access" pt="md">
          <Stack gap="xl">
            <PasswordForm userId={record.userId} />
            <PasswordResetLink userId={record.userId} />
            <CredentialsPanel userId={record.userId} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="moderation" pt="md">
          <ModerationPanel user={record} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <HistoryPanel userId={record.userId} />
        </Tabs.Panel>
      </Tabs>
    </Page>
  );
}
