import { Button, Center, Divider, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { Redirect, useLocation } from 'wouter';
import { serverUrl } from '../api/base.js';
import { apiErrorOf } from '../api/errors.js';
import { takeReturnPath } from '../auth/return-path.js';
import { useSignedIn } from '../auth/session.js';
import { adoptAdminToken, signIn } from '../auth/tokens.js';
import { ErrorNote } from '../components/ErrorNote.js';

/** Asks GET /api/v2/me with the pasted token before keeping it, so a wrong token is refused here, in words. */
async function checkAdminToken(token: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(serverUrl('/api/v2/me'), { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  } catch {
    throw apiErrorOf(0, null);
  }
  if (response.ok) return;
  const body: unknown = await response.json().catch(() => null);
  throw apiErrorOf(response.status, body);
}

function SignInWithParley() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      window.location.assign(await signIn.authorizeUrl());
    } catch (thrown) {
      setError(thrown);
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs">
      <Button size="md" onClick={start} loading={busy}>
        Sign in with Parley
      </Button>
      <ErrorNote error={error} title="Sign-in could not start" />
    </Stack>
  );
}

function AdminTokenForm() {
  const [, navigate] = useLocation();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = token.trim();
    if (trimmed === '') return setError(new Error('Paste an admin token first.'));
    setBusy(true);
    setError(null);
    try {
      await checkAdminToken(trimmed);
      adoptAdminToken(trimmed);
      navigate(takeReturnPath(), { replace: true });
    } catch (thrown) {
      setError(thrown);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        <Title order={2} size="h5">
          Use an admin token
        </Title>
        <Text size="sm" c="dimmed">
          For operators and automation: the token is kept in this tab only.
        </Text>
        <PasswordInput label="Admin token" value={token} onChange={(event) => setToken(event.currentTarget.value)} autoComplete="off" />
        <ErrorNote error={error} title="The token was refused" />
        <Button type="submit" variant="default" loading={busy}>
          Use token
        </Button>
      </Stack>
    </form>
  );
}

export function LoginScreen() {
  if (useSignedIn()) return <Redirect to="/" replace />;
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420} component="main">
        <Stack gap="lg">
          <Title order={1} size="h2">
            Parley console
          </Title>
          <SignInWithParley />
          <Divider label="or" labelPosition="center" />
          <AdminTokenForm />
        </Stack>
      </Paper>
    </Center>
  );
}
