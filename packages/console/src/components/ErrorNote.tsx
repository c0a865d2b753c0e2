import { Alert, List } from '@mantine/core';
import { ApiError, messageOf } from '../api/errors.js';

/** An error in words: the envelope's message, and for a refused form the fields and their problems. */
export function ErrorNote({ error, title = 'That did not work' }: { error: unknown; title?: string }) {
  if (error === null || error === undefined) return null;
  const detail = error instanceof ApiError ? error.detail : [];
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      {messageOf(error)}
      {detail.length > 0 && (
        <List size="sm" mt="xs">
          {detail.map((problem) => (
            <List.Item key={`${problem.field}:${problem.message}`}>{problem.field === '' ? problem.message : `${problem.field}: ${problem.message}`}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}
