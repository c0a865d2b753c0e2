import { Button, Center, Group, Loader, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { when } from '../channels/format.js';
import type { Rule } from '../../api/types.js';
import { type RuleKind, rulesQuery, useDeleteRule, useSetRuleEnabled } from './api.js';
import { EditRule, WHAT } from './RuleForms.js';

/** Rows drawn at once; "Show more" draws the next ones (a list can hold thousands of rules). */
const SHOWN_STEP = 100;

function EnabledSwitch({ kind, rule }: { kind: RuleKind; rule: Rule }) {
  const toggle = useSetRuleEnabled(kind, rule.ruleId);
  return (
    <Stack gap={2}>
      <Switch
        aria-label={`Enabled: ${rule.regex}`}
        checked={toggle.isPending ? toggle.variables : rule.isEnabled}
        onChange={(event) => toggle.mutate(event.currentTarget.checked)}
        disabled={toggle.isPending}
      />
      <ErrorNote error={toggle.error} title="Not changed" />
    </Stack>
  );
}

/** One list's rules, filtered by a text typed in; each can be edited, switched off or deleted. */
export function RuleTable({ kind }: { kind: RuleKind }) {
  const rules = useQuery(rulesQuery(kind));
  const remove = useDeleteRule(kind);
  const [find, setFind] = useState('');
  const [shown, setShown] = useState(SHOWN_STEP);
  const needle = find.trim().toLowerCase();
  const matching = (rules.data ?? []).filter((rule) => needle === '' || rule.regex.toLowerCase().includes(needle));
  const listName = kind === 'blacklist' ? 'Blacklist rules' : 'Whitelist rules';

  if (rules.isLoading) {
    return (
      <Center p="md">
        <Loader aria-label={`Loading ${listName.toLowerCase()}`} />
      </Center>
    );
  }
  return (
    <Stack gap="sm">
      <ErrorNote error={rules.error} title="The rules could not be read" />
      <TextInput
        label={`Find ${WHAT[kind].many}`}
        value={find}
        onChange={(event) => {
          setFind(event.currentTarget.value);
          setShown(SHOWN_STEP);
        }}
        maw={360}
      />
      <Table.ScrollContainer minWidth={560}>
        <Table striped captionSide="top">
          <Table.Caption>
            {listName} ({matching.length}
            {needle === '' ? '' : ` of ${rules.data?.length ?? 0}`})
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{WHAT[kind].one}</Table.Th>
              {kind === 'blacklist' && <Table.Th>Match</Table.Th>}
              <Table.Th>Enabled</Table.Th>
              <Table.Th>Changed</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {matching.slice(0, shown).map((rule) => (
              <Table.Tr key={rule.ruleId}>
                <Table.Td style={{ overflowWrap: 'anywhere' }}>{rule.regex}</Table.Td>
                {kind === 'blacklist' && <Table.Td>{rule.isMatchExactWord ? 'Whole word' : 'Anywhere'}</Table.Td>}
                <Table.Td>
                  <EnabledSwitch kind={kind} rule={rule} />
                </Table.Td>
                <Table.Td>{when(rule.updatedAt)}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <EditRule key={rule.updatedAt} kind={kind} rule={rule} />
                    <ConfirmAction
                      label="Delete rule"
                      title={`Delete the rule “${rule.regex}”?`}
                      message={kind === 'blacklist' ? 'Messages with this word will be accepted again.' : 'Links to this address will be refused again.'}
                      size="xs"
                      onConfirm={() => remove.mutateAsync(rule.ruleId)}
                    />
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {matching.length === 0 && !rules.error && <Text c="dimmed">{needle === '' ? 'No rules yet.' : 'No rule matches.'}</Text>}
      {matching.length > shown && (
        <Button variant="default" onClick={() => setShown((count) => count + SHOWN_STEP)} style={{ alignSelf: 'flex-start' }}>
          Show more rules
        </Button>
      )}
    </Stack>
  );
}
