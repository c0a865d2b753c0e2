import { Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { Page } from '../components/Page.js';
import type { RuleKind } from './rules/api.js';
import { AddRule, BulkAdd } from './rules/RuleForms.js';
import { RuleTable } from './rules/RuleTable.js';
import { TestText } from './rules/TestText.js';

const LISTS: Array<{ kind: RuleKind; tab: string; about: string }> = [
  {
    kind: 'blacklist',
    tab: 'Blacklist',
    about:
      'A message containing an enabled blacklisted word is refused. Words are literals: case and look-alike characters (fullwidth, ligatures) do not matter, and whole-word rules do not match inside longer words.',
  },
  {
    kind: 'whitelist',
    tab: 'Whitelist',
    about: 'Once any whitelist rule is enabled, every link in a message must match one: its host (subdomains included) and path prefix.',
  },
];

/** /rules: the blacklisted words and whitelisted links messages are checked against. */
export function RulesScreen() {
  return (
    <Page title="Rules">
      <TestText />
      <Tabs defaultValue="blacklist">
        <Tabs.List>
          {LISTS.map((list) => (
            <Tabs.Tab key={list.kind} value={list.kind}>
              {list.tab}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {LISTS.map((list) => (
          <Tabs.Panel key={list.kind} value={list.kind} pt="md">
            <Stack gap="md">
              <Text size="sm">{list.about}</Text>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Add a {list.kind} rule
                  </Title>
                  <AddRule kind={list.kind} />
                </Stack>
              </Paper>
              <BulkAdd kind={list.kind} />
              <RuleTable kind={list.kind} />
            </Stack>
          </Tabs.Panel>
        ))}
      </Tabs>
    </Page>
  );
}
