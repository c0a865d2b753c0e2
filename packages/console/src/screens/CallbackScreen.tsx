import { Anchor, Center, Loader, Paper, Stack, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { takeReturnPath } from '../auth/return-path.js';
import { adoptOidcSession, signIn } from '../auth/tokens.js';
import { ErrorNote } from '../components/ErrorNote.js';

// The code and state may be used once: React's strict mode runs effects twice, so both runs share one exchange.
const exchanges = new Map<string, Promise<void>>();

function exchange(url: string): Promise<void> {
  let pending = exchanges.get(url);
  if (pending === undefined) {
    pending = signIn.handleCallback(url).then((result) => adoptOidcSession(result.session));
    exchanges.set(url, pending);
  }
  return pending;
}

/**
 * /callback: exchanges the authorization code for tokens (kept in sessionStorage), then opens the page
 * a signed-out visit asked for, or the console's home.
 */
export function CallbackScreen() {
  const [, navigate] = useLocation();
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    exchange(window.location.href).then(
      () => live && navigate(takeReturnPath(), { replace: true }),
      (thrown: unknown) => live && setError(thrown),
    );
    return () => {
      live = false;
    };
  }, [navigate]);

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w="100%" maw={420} component="main">
        <Stack>
          <Title order={1} size="h3">
            Signing in
          </Title>
          {error === null ? (
            <Loader aria-label="Finishing sign-in" />
          ) : (
            <>
              <ErrorNote error={error} title="Sign-in failed" />
              <Anchor component={Link} href="/login">
                Back to sign-in
              </Anchor>
            </>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
