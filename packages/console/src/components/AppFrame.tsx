import { AppShell, Badge, Burger, Button, Group, NavLink, ScrollArea, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useModerationSummary } from '../api/moderation.js';
import { maySee, SCREENS } from '../auth/screens.js';
import { useSession } from '../auth/session.js';

function QueueCount() {
  const summary = useModerationSummary(true);
  if (!summary.data) return null;
  const open = summary.data.openMessages + summary.data.openUsers;
  return (
    <Badge size="sm" variant={open > 0 ? 'filled' : 'light'} color={open > 0 ? 'red' : 'gray'} aria-label={`${open} open`}>
      {open}
    </Badge>
  );
}

function SignedInAs() {
  const { me, signOut } = useSession();
  const who = me.kind === 'adminToken' ? 'Admin token' : (me.displayName ?? me.userId ?? 'Signed in');
  return (
    <Stack gap={4} p="sm">
      <Text size="xs" c="dimmed">
        Signed in as
      </Text>
      <Text size="sm" fw={600} data-testid="signed-in-as">
        {who}
      </Text>
      <Button variant="default" size="xs" onClick={signOut}>
        Sign out
      </Button>
    </Stack>
  );
}

/** The console's frame: header with the burger (under 768 px), the navbar of the screens the person may see. */
export function AppFrame({ children }: { children: ReactNode }) {
  const session = useSession();
  const [opened, { toggle, close }] = useDisclosure(false);
  const [location] = useLocation();
  const screens = SCREENS.filter((screen) => maySee(session, screen.id));

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" gap="sm">
          <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close navigation' : 'Open navigation'} />
          <Text fw={700} size="lg">
            Parley console
          </Text>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar aria-label="Screens">
        <AppShell.Section grow component={ScrollArea} p="xs">
          <nav aria-label="Console screens">
            {screens.map((screen) => (
              <NavLink
                key={screen.id}
                component={Link}
                href={screen.path}
                label={screen.label}
                active={location === screen.path || location.startsWith(`${screen.path}/`)}
                aria-current={location === screen.path ? 'page' : undefined}
                rightSection={screen.id === 'queue' ? <QueueCount /> : undefined}
                onClick={close}
              />
            ))}
          </nav>
        </AppShell.Section>
        <AppShell.Section>
          <SignedInAs />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
