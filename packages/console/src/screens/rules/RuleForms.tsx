import { Button, Checkbox, Group, List, Modal, Paper, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { messageOf } from '../../api/client.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import type { Rule } from '../../api/types.js';
import { type BulkOutcome, linesOf, MAX_RULES_PER_CREATE, type RuleKind, useAddRules, useBulkAddRules, useUpdateRule } from './api.js';

/** What a rule holds in each list, in words. */
export const WHAT = {
  blacklist: { one: 'Word', many: 'words', hint: 'A word or phrase, taken literally (not a pattern); case does not matter' },
  whitelist: { one: 'URL', many: 'URLs', hint: 'A host (subdomains included) and optional path prefix, such as docs.example.com/handbook' },
} as const;

/** Adds one rule. */
export function AddRule({ kind }: { kind: RuleKind }) {
  const [word, setWord] = useState('');
  const [wholeWord, setWholeWord] = useState(false);
  const add = useAddRules(kind, { onSuccess: () => setWord('') });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate({ words: [word.trim()], wholeWord });
      }}
    >
      <Stack gap="xs">
        <Group align="flex-end" gap="xs" wrap="wrap">
          <TextInput
            label={WHAT[kind].one}
            description={WHAT[kind].hint}
            value={word}
            onChange={(event) => setWord(event.currentTarget.value)}
            style={{ flex: '1 1 16rem' }}
          />
          {kind === 'blacklist' && (
            <Checkbox label="Whole word only" checked={wholeWord} onChange={(event) => setWholeWord(event.currentTarget.checked)} mb={8} />
          )}
          <Button type="submit" loading={add.isPending} disabled={word.trim() === ''}>
            Add rule
          </Button>
        </Group>
        <ErrorNote error={add.error} title="The rule was not added" />
      </Stack>
    </form>
  );
}

/** Pastes many rules at once, one per line; the lines that failed stay in the box with their reasons. */
export function BulkAdd({ kind }: { kind: RuleKind }) {
  const [text, setText] = useState('');
  const [wholeWord, setWholeWord] = useState(false);
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const bulk = useBulkAddRules(kind, {
    onMutate: () => setOutcome(null),
    onSuccess: (result) => {
      setOutcome(result);
      setText(result.failed.map((failure) => failure.word).join('\n'));
    },
  });
  const words = linesOf(text);
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          bulk.mutate({ words, wholeWord });
        }}
      >
        <Stack gap="sm">
          <Title order={2} size="h4">
            Add many {WHAT[kind].many}
          </Title>
          <Textarea
            label={`${WHAT[kind].one}s, one per line`}
            description={`${words.length} to add; blank lines and repeats are skipped, and they are sent ${MAX_RULES_PER_CREATE} at a time`}
            autosize
            minRows={3}
            maxRows={12}
            value={text}
            onChange={(event) => setText(event.currentTarget.value)}
          />
          <Group justify="space-between" wrap="wrap">
            {kind === 'blacklist' ? (
              <Checkbox label="Whole words only" checked={wholeWord} onChange={(event) => setWholeWord(event.currentTarget.checked)} />
            ) : (
              <span />
            )}
            <Button type="submit" loading={bulk.isPending} disabled={words.length === 0}>
              Add rules
            </Button>
          </Group>
          <ErrorNote error={bulk.error} title="The rules were not added" />
          {outcome && (
            <Stack gap={4} role="status">
              <Text size="sm">
                Added {outcome.created.length} {outcome.created.length === 1 ? 'rule' : 'rules'}
                {outcome.failed.length === 0 ? '.' : `; ${outcome.failed.length} failed and stay in the box:`}
              </Text>
              {outcome.failed.length > 0 && (
                <List size="sm" c="red">
                  {outcome.failed.map((failure) => (
                    <List.Item key={failure.word}>
                      {failure.word}: {messageOf(failure.error)}
                    </List.Item>
                  ))}
                </List>
              )}
            </Stack>
          )}
        </Stack>
      </form>
    </Paper>
  );
}

/** Edits one rule's word (and, for a blacklist rule, whole-word matching) in a dialog. */
export function EditRule({ kind, rule }: { kind: RuleKind; rule: Rule }) {
  const [open, setOpen] = useState(false);
  const [word, setWord] = useState(rule.regex);
  const [wholeWord, setWholeWord] = useState(rule.isMatchExactWord);
  const save = useUpdateRule(kind, rule.ruleId, { onSuccess: () => setOpen(false) });
  const openDialog = () => {
    setWord(rule.regex);
    setWholeWord(rule.isMatchExactWord);
    save.reset();
    setOpen(true);
  };
  return (
    <>
      <Button size="xs" variant="default" onClick={openDialog} aria-label={`Edit rule ${rule.regex}`}>
        Edit
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Edit rule “${rule.regex}”`}>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate({ regex: word.trim(), ...(kind === 'blacklist' ? { isMatchExactWord: wholeWord } : {}) });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label={WHAT[kind].one}
              description={WHAT[kind].hint}
              value={word}
              onChange={(event) => setWord(event.currentTarget.value)}
              data-autofocus
            />
            {kind === 'blacklist' && <Checkbox label="Whole word only" checked={wholeWord} onChange={(event) => setWholeWord(event.currentTarget.checked)} />}
            <ErrorNote error={save.error} title="The rule was not changed" />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpen(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending} disabled={word.trim() === ''}>
                Save rule
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
