import { Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { useSetPassword } from './api.js';

const MIN_LENGTH = 8;

/** Sets a user's sign-in password; the server signs them out everywhere when it changes. */
export function PasswordForm({ userId }: { userId: string }) {
  const [password, setPassword] = useState('');
  const tooShort = password.length > 0 && password.length < MIN_LENGTH;
  const save = useSetPassword(userId, {
    onSuccess: () => {
      setPassword('');
      notifications.show({ color: 'green', message: 'Password set; the user is signed out everywhere.' });
    },
  });

  return (
    <Stack gap="xs" maw={560}>
      <Title order={2} size="h4">
        Password
      </Title>
      <Text size="sm" c="dimmed">
        Setting a password ends every session and token the user holds.
      </Text>
      <Group align="flex-end" gap="sm">
        <PasswordInput
          label="New password"
          value={password}
          onChange={(event) => setPassword(event.currentTarget.value)}
          autoComplete="new-password"
          maxLength={256}
          error={tooShort ? `At least ${MIN_LENGTH} characters.` : undefined}
          w={280}
        />
        <ConfirmAction
          label="Set password"
          title="Set this user's password?"
          message="The user is signed out everywhere and signs in again with the new password."
          color="orange"
          disabled={password.length < MIN_LENGTH}
          onConfirm={() => save.mutateAsync(password)}
        />
      </Group>
    </Stack>
  );
}
