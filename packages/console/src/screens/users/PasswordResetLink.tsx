import { Alert, Button, CopyButton, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { makePasswordResetLink, type PasswordResetLink as Link } from '../../api/operator.js';
import { useApiMutation } from '../../api/mutation.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { formatTime } from '../../components/time.js';

/**
 * A one-time password-reset link to hand to the person (Parley sends no email): valid 30 minutes, a
 * newer link replaces it, and using it signs the person out everywhere.
 */
export function PasswordResetLink({ userId }: { userId: string }) {
  const [link, setLink] = useState<Link | null>(null);
  const make = useApiMutation(() => makePasswordResetLink(userId), null, { onSuccess: setLink });

  return (
    <Stack gap="xs" maw={640}>
      <Title order={2} size="h4">
        Password reset link
      </Title>
      <Text size="sm" c="dimmed">
        A link the person opens to choose a password themselves. It works once, for 30 minutes; a newer link replaces it.
      </Text>
      <ErrorNote error={make.error} />
      <Group>
        <Button variant="default" onClick={() => make.mutate()} loading={make.isPending}>
          {link === null ? 'Make a password reset link' : 'Make another link'}
        </Button>
      </Group>
      {link !== null && (
        <Alert color="blue" title="Hand this link to the person" role="status">
          <Stack gap="xs">
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput label="Reset link" value={link.url} readOnly style={{ flex: 1 }} onFocus={(event) => event.currentTarget.select()} />
              <CopyButton value={link.url} timeout={2000}>
                {({ copied, copy }) => (
                  <Button variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy}>
                    {copied ? 'Copied' : 'Copy link'}
                  </Button>
                )}
              </CopyButton>
            </Group>
            <Text size="xs">{`Works once, until ${formatTime(link.expiresAt)}. It is not shown again.`}</Text>
          </Stack>
        </Alert>
      )}
    </Stack>
  );
}
