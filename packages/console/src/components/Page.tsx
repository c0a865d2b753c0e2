import { Group, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A screen's frame: its h1 and actions on top, the content below. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <Stack gap="md">
      <Group justify="space-between" align="center" wrap="wrap" gap="sm">
        <Title order={1} size="h2">
          {title}
        </Title>
        {actions !== undefined && <Group gap="xs">{actions}</Group>}
      </Group>
      {children}
    </Stack>
  );
}
