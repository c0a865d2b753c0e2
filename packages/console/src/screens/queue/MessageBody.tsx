import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import type { AdminMessage } from '../../api/types.js';
import { AuthedDownload, AuthedImage } from '../../components/AuthedMedia.js';

function field(data: Record<string, unknown>, name: string): string | null {
  const value = data[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function sizeLabel(bytes: unknown): string {
  if (typeof bytes !== 'number') return '';
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A message's content as its readers saw it: text, image with caption, file, or custom JSON. */
export function MessageBody({ message }: { message: AdminMessage }) {
  const id = encodeURIComponent(message.messageId);
  if (message.isDeleted) {
    return (
      <Text size="sm" fs="italic" c="dimmed">
        This message was deleted.
      </Text>
    );
  }
  const data = message.data;
  if (message.type === 'text') {
    return (
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {field(data, 'text') ?? ''}
      </Text>
    );
  }
  if (message.type === 'image') {
    const caption = field(data, 'caption');
    return (
      <Stack gap={4}>
        <AuthedImage path={`/api/v2/messages/${id}/images?size=medium`} alt={caption ?? 'The message image'} />
        {caption !== null && <Text size="sm">{caption}</Text>}
      </Stack>
    );
  }
  if (message.type === 'file') {
    const name = field(data, 'fileName') ?? 'file';
    return (
      <Group gap="xs">
        <Badge variant="light">File</Badge>
        <AuthedDownload path={`/api/v2/messages/${id}/files`} fileName={name}>
          {`Download ${name}`}
        </AuthedDownload>
        <Text size="xs" c="dimmed">
          {[field(data, 'contentType'), sizeLabel(data.size)].filter(Boolean).join(', ')}
        </Text>
      </Group>
    );
  }
  return (
    <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {JSON.stringify(data, null, 2)}
    </Code>
  );
}
