import { Alert, Button, Group, List, Textarea } from '@mantine/core';
import { useState } from 'react';
import { FormCard } from '../../components/FormCard.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import type { RuleMatch } from '../../api/types.js';
import { useTestText } from './api.js';

function describe(match: RuleMatch): string {
  return match.list === 'blacklist' ? `Blacklisted word “${match.word}”` : `Link not on the whitelist: ${match.word}`;
}

/** "Test this text": asks the server which enabled rule a message with this text would break. */
export function TestText() {
  const [text, setText] = useState('');
  const test = useTestText();
  const result = test.data;
  return (
    <FormCard title="Test this text" onSubmit={() => test.mutate(text)}>
      <Textarea
        label="Text to test"
        description="Checked as a message would be, against the enabled rules"
        autosize
        minRows={2}
        maxRows={8}
        value={text}
        onChange={(event) => {
          setText(event.currentTarget.value);
          if (test.data || test.error) test.reset();
        }}
      />
      <Group justify="flex-end">
        <Button type="submit" loading={test.isPending} disabled={text.trim() === ''}>
          Test text
        </Button>
      </Group>
      <ErrorNote error={test.error} title="The text could not be tested" />
      {result &&
        (result.allowed ? (
          <Alert color="green" title="Allowed" role="status">
            No enabled rule refuses this text.
          </Alert>
        ) : (
          <Alert color="red" title="Refused" role="status">
            <List size="sm">
              {result.matched.map((match) => (
                <List.Item key={`${match.list}:${match.ruleId ?? match.word}`}>{describe(match)}</List.Item>
              ))}
            </List>
          </Alert>
        ))}
    </FormCard>
  );
}
