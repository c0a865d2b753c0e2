import { Badge, Button, Code, Group, Image, Modal, Paper, Stack, Text } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import type { AdminMessage, AdminUser } from '../../api/types.js';
import { ConfirmAction } from '../../components/ConfirmAction.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { useDownloadFile } from './api.js';
import { bytes, when } from './format.js';
import { imagePath, useBlobUrl } from './media.js';

const textOf = (value: unknown): string => (typeof value === 'string' ? value : '');

function ImageBody({ message, author }: { message: AdminMessage; author: string }) {
  const [open, setOpen] = useState(false);
  const thumbnail = useBlobUrl(imagePath(message.messageId, 'small'));
  const large = useBlobUrl(open ? imagePath(message.messageId, 'large') : null);
  const caption = textOf(message.data.caption);
  const alt = caption === '' ? `Image sent by ${author}` : caption;
  return (
    <Stack gap={4}>
      {thumbnail.url ? (
        <button
          type="button"
          onClick={() => setOpen(true)}
          aria-label={`View image: ${alt}`}
          style={{ all: 'unset', cursor: 'zoom-in', alignSelf: 'flex-start' }}
        >
          <Image src={thumbnail.url} alt={alt} maw={240} mah={240} fit="contain" radius="sm" />
        </button>
      ) : thumbnail.error ? (
        <ErrorNote error={thumbnail.error} title="The image could not be loaded" />
      ) : (
        <Text size="sm" c="dimmed">
          Loading image…
        </Text>
      )}
      {caption !== '' && <Text size="sm">{caption}</Text>}
      <Modal opened={open} onClose={() => setOpen(false)} title={alt} size="xl">
        {large.url ? <Image src={large.url} alt={alt} fit="contain" /> : <ErrorNote error={large.error} title="The image could not be loaded" />}
      </Modal>
    </Stack>
  );
}

function FileBody({ message }: { message: AdminMessage }) {
  const fileName = textOf(message.data.fileName) || 'file';
  const size = typeof message.data.size === 'number' ? bytes(message.data.size) : '';
  const fetchFile = useDownloadFile();
  return (
    <Stack gap={4}>
      <Group gap="xs">
        <Text size="sm">
          {fileName}
          {size !== '' && ` (${size}, ${textOf(message.data.contentType) || 'unknown type'})`}
        </Text>
        <Button size="xs" variant="default" onClick={() => fetchFile.mutate({ messageId: message.messageId, fileName })} loading={fetchFile.isPending}>
          Download {fileName}
        </Button>
      </Group>
      <ErrorNote error={fetchFile.error} title="The file could not be downloaded" />
    </Stack>
  );
}

function Body({ message, author }: { message: AdminMessage; author: string }) {
  if (message.isDeleted) {
    return (
      <Text size="sm" c="dimmed" fs="italic">
        This message was deleted.
      </Text>
    );
  }
  if (message.type === 'text') {
    return (
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {textOf(message.data.text)}
      </Text>
    );
  }
  if (message.type === 'image') return <ImageBody message={message} author={author} />;
  if (message.type === 'file') return <FileBody message={message} />;
  return (
    <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {JSON.stringify(message.data, null, 2)}
    </Code>
  );
}

export interface MessageItemProps {
  message: AdminMessage;
  author: AdminUser | undefined;
  mayDelete: boolean;
  onDelete: () => Promise<unknown>;
  /** The comments under the message, when the person opened them. */
  comments?: ReactNode;
  commentsOpen?: boolean;
  onToggleComments?: () => void;
}

/** One message: author, time, content (text, image thumbnail, file download), comments and delete. */
export function MessageItem({ message, author, mayDelete, onDelete, comments, commentsOpen, onToggleComments }: MessageItemProps) {
  const name = author?.displayName || message.userId;
  return (
    <Paper withBorder px="sm" py="xs" component="article" aria-label={`Message ${message.channelSegment} from ${name}`}>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Group gap={6} wrap="wrap">
            <Text size="sm" fw={600}>
              {name}
            </Text>
            {name !== message.userId && (
              <Text size="xs" c="dimmed">
                {message.userId}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              {when(message.createdAt)} · #{message.channelSegment}
            </Text>
          </Group>
          <Group gap={4}>
            {message.tags.map((tag) => (
              <Badge key={tag} size="xs" variant="light">
                {tag}
              </Badge>
            ))}
            {message.flagCount > 0 && (
              <Badge size="xs" color="orange">
                {message.flagCount} {message.flagCount === 1 ? 'flag' : 'flags'}
              </Badge>
            )}
            {message.isDeleted && (
              <Badge size="xs" color="gray">
                Deleted
              </Badge>
            )}
            {mayDelete && !message.isDeleted && (
              <ConfirmAction
                label="Delete message"
                title="Delete this message?"
                message="Its text is removed and its image or file deleted, for everyone. This cannot be undone."
                size="compact-xs"
                variant="subtle"
                onConfirm={onDelete}
              />
            )}
          </Group>
        </Group>
        <Body message={message} author={name} />
        {onToggleComments && message.childrenNumber > 0 && (
          <Button size="compact-xs" variant="subtle" onClick={onToggleComments} aria-expanded={commentsOpen === true} style={{ alignSelf: 'flex-start' }}>
            {commentsOpen ? 'Hide comments' : `Show comments (${message.childrenNumber})`}
          </Button>
        )}
        {commentsOpen && comments}
      </Stack>
    </Paper>
  );
}
