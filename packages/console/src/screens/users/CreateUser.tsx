import { Button, Group, Modal, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { useApiMutation } from '../../api/mutation.js';
import { createUserIfNew, type NewUserFields } from '../../api/operator.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { userKeys } from './api.js';

const MIN_PASSWORD = 8;
const ID_PATTERN = /^\S+$/;

type Fields = NewUserFields;

const EMPTY: Fields = { userId: '', displayName: '', username: '', password: '', email: '' };

function problemsOf(fields: Fields): Partial<Record<keyof Fields, string>> {
  const problems: Partial<Record<keyof Fields, string>> = {};
  if (fields.userId !== '' && !ID_PATTERN.test(fields.userId.trim())) problems.userId = 'No spaces.';
  if (fields.username !== '' && !ID_PATTERN.test(fields.username.trim())) problems.username = 'No spaces.';
  if (fields.password !== '' && fields.password.length < MIN_PASSWORD) problems.password = `At least ${MIN_PASSWORD} characters.`;
  if (fields.password !== '' && fields.username.trim() === '') problems.username = 'A password needs a username to sign in with.';
  return problems;
}

/** "Create user": a dialog with the account's id, name and sign-in fields; opens the user once made. */
export function CreateUser() {
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [, navigate] = useLocation();
  const create = useApiMutation(createUserIfNew, (queryClient) => queryClient.invalidateQueries({ queryKey: userKeys.lists }), {
    onSuccess: (user) => {
      notifications.show({ color: 'green', message: `User ${user.userId} created.` });
      setOpen(false);
      setFields(EMPTY);
      navigate(`/users/${encodeURIComponent(user.userId)}`);
    },
  });
  const problems = problemsOf(fields);
  const ready = fields.userId.trim() !== '' && Object.keys(problems).length === 0;
  const set = (key: keyof Fields) => (event: { currentTarget: { value: string } }) => {
    const { value } = event.currentTarget;
    setFields((current) => ({ ...current, [key]: value }));
  };
  const close = () => {
    if (create.isPending) return;
    setOpen(false);
    create.reset();
  };

  return (
    <>
      <Button onClick={() => setOpen(true)}>Create user</Button>
      <Modal opened={open} onClose={close} title="Create user" centered>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (ready) create.mutate(fields);
          }}
        >
          <Stack gap="sm">
            <TextInput label="User id" required value={fields.userId} onChange={set('userId')} maxLength={64} error={problems.userId} data-autofocus />
            <TextInput label="Display name" value={fields.displayName} onChange={set('displayName')} maxLength={200} />
            <TextInput
              label="Username"
              description="What the person types on the login page"
              value={fields.username}
              onChange={set('username')}
              maxLength={128}
              autoComplete="off"
              error={problems.username}
            />
            <PasswordInput
              label="Password"
              description="Optional: leave it empty and hand the person a password reset link instead"
              value={fields.password}
              onChange={set('password')}
              maxLength={256}
              autoComplete="new-password"
              error={problems.password}
            />
            <TextInput label="Email" type="email" value={fields.email} onChange={set('email')} maxLength={320} />
            <Text size="xs" c="dimmed">
              Roles, profile fields and the avatar are set on the user's page once created.
            </Text>
            <ErrorNote error={create.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={create.isPending}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending} disabled={!ready}>
                Create
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
