import { Tabs } from '@mantine/core';
import { Page } from '../components/Page.js';
import { AdminTokensPanel } from './apps/AdminTokensPanel.js';
import { BotsPanel } from './apps/BotsPanel.js';
import { ClientsPanel } from './apps/ClientsPanel.js';

/** /apps: the OAuth clients that sign users in, the bots, and the admin tokens of automations. */
export function AppsScreen() {
  return (
    <Page title="Apps">
      <Tabs defaultValue="clients" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="clients">OAuth clients</Tabs.Tab>
          <Tabs.Tab value="bots">Bots</Tabs.Tab>
          <Tabs.Tab value="tokens">Admin tokens</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="clients" pt="md">
          <ClientsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="bots" pt="md">
          <BotsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="tokens" pt="md">
          <AdminTokensPanel />
        </Tabs.Panel>
      </Tabs>
    </Page>
  );
}
