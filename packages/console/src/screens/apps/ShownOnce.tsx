import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export interface Secret {
  /** What it is, as the copy button names it: "client secret", "token". */
  label: string;
  value: string;
}

export interface ShownOnceProps {
  title: string;
  /** What was created, in a sentence. */
  intro?: ReactNode;
  /** Values shown for reference (client id): copyable, not secret. */
  values?: Secret[];
  /** The secrets the server never shows again. */
  secrets: Secret[];
  onClose: () => void;
}

function Copyable({ item }: { item: Secret }) {
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {item.label.charAt(0).toUpperCase() + item.label.slice(1)}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code block style={{ flex: 1, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          {item.value}
        </Code>
        <CopyButton value={item.value} timeout={2000}>
          {({ copied, copy }) => (
            <Button size="xs" variant={copied ? 'filled' : 'default'} color={copied ? 'teal' : undefined} onClick={copy}>
              {copied ? 'Copied' : `Copy ${item.label}`}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

/**
 * A dialog with a secret that is shown once (a client secret, a token): copy buttons, and a close that
 * asks to have copied it first. Clicking outside does not close it, so the secret is not lost by a slip.
 */
export function ShownOnce({ title, intro, values = [], secrets, onClose }: ShownOnceProps) {
  return (
    <Modal opened onClose={onClose} title={title} closeOnClickOutside={false} size="lg">
      <Stack gap="md">
        {intro !== undefined && <Text size="sm">{intro}</Text>}
        {values.map((item) => (
          <Copyable key={item.label} item={item} />
        ))}
        {secrets.length > 0 && (
          <Alert color="orange" title="Shown once" role="alert">
            Copy the {secrets.map((secret) => secret.label).join(' and ')} now: {secrets.length === 1 ? 'it is' : 'they are'} shown once and never again.
          </Alert>
        )}
        {secrets.map((item) => (
          <Copyable key={item.label} item={item} />
        ))}
        <Group justify="flex-end">
          <Button onClick={onClose}>{secrets.length > 0 ? 'I have copied it' : 'Done'}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
