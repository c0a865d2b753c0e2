import { Box, Button, Collapse, Divider, Loader, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { AdminMessage } from '../../api/types.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { formatTime } from '../../components/time.js';
import { MessageBody } from './MessageBody.js';
import { threadQuery } from './api.js';

/** Who wrote what, by user id: the display name is all the thread shows. */
type Named = { userId: string; displayName: string };
type Authors = ReadonlyMap<string, Named>;

function ContextMessage({ message, authors, highlight = false }: { message: AdminMessage; authors: Authors; highlight?: boolean }) {
  const author = authors.get(message.userId);
  return (
    <Paper p="xs" withBorder={highlight} bg={highlight ? 'var(--mantine-color-yellow-light)' : undefined} aria-current={highlight ? 'true' : undefined}>
      <Text size="xs" c="dimmed">
        {author?.displayName || message.userId} · {formatTime(message.createdAt)}
        {highlight ? ' · flagged message' : ''}
      </Text>
      <MessageBody message={message} />
    </Paper>
  );
}

function Section({ title, messages, authors }: { title: string; messages: AdminMessage[]; authors: Authors }) {
  if (messages.length === 0) return null;
  return (
    <Stack gap={4}>
      <Text size="xs" fw={700} tt="uppercase" c="dimmed">
        {title}
      </Text>
      {messages.map((message) => (
        <ContextMessage key={message.messageId} message={message} authors={authors} />
      ))}
    </Stack>
  );
}

function ContextBody({ message, author }: { message: AdminMessage; author: Named | undefined }) {
  const context = useQuery(threadQuery(message));
  if (context.isPending) return <Loader size="sm" aria-label="Loading the thread" />;
  if (context.error) return <ErrorNote error={context.error} title="The thread could not be loaded" />;
  const { before, after, parent, comments } = context.data;
  const authors: Authors = author ? new Map<string, Named>([...context.data.authors, [author.userId, author]]) : context.data.authors;
  return (
    <Stack gap="xs">
      {parent && <Section title="Commenting on" messages={[parent]} authors={authors} />}
      <Section title={parent ? 'Earlier comments' : 'Before'} messages={before} authors={authors} />
      <ContextMessage message={message} authors={authors} highlight />
      <Section title={parent ? 'Later comments' : 'After'} messages={after} authors={authors} />
      <Section title="Comments" messages={comments} authors={authors} />
      {before.length + after.length + comments.length === 0 && !parent && (
        <Text size="sm" c="dimmed">
          No other messages around this one.
        </Text>
      )}
    </Stack>
  );
}

/** The flagged message in its thread, loaded when the moderator opens it. */
export function ThreadContextView({ message, author }: { message: AdminMessage; author?: Named }) {
  const [open, setOpen] = useState(false);
  return (
    <Box>
      <Button variant="subtle" size="compact-sm" onClick={() => setOpen((value) => !value)} aria-expanded={open}>
        {open ? 'Hide thread' : 'Show thread'}
      </Button>
      <Collapse expanded={open}>
        <Divider my="xs" />
        {open && <ContextBody message={message} author={author} />}
      </Collapse>
    </Box>
  );
}
