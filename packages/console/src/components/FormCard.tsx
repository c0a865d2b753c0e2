import { Paper, Stack, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/** A bordered form with its heading (an h2): the console's create and send forms. Submitting never reloads the page. */
export function FormCard({ title, onSubmit, children }: { title: string; onSubmit: () => void; children: ReactNode }) {
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            {title}
          </Title>
          {children}
        </Stack>
      </form>
    </Paper>
  );
}
