import { Button, FileInput, Group, JsonInput, Stack, TagsInput, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, authedFetch, call } from '../../api/client.js';
import { serverUrl } from '../../api/base.js';
import { apiErrorOf } from '../../api/errors.js';
import type { AdminUser } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { listRoleNames, userKeys } from './users-api.js';

/** The metadata field's text as an object, or the problem in words. */
function parseMetadata(text: string): { value: Record<string, unknown> } | { problem: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'Metadata must be a JSON object, such as {"team": "support"}.' };
    return { value: value as Record<string, unknown> };
  } catch {
    return { problem: 'Metadata is not valid JSON.' };
  }
}

function AvatarUpload({ userId }: { userId: string }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const upload = async () => {
    if (file === null) return;
    setBusy(true);
    setError(null);
    try {
      const form = new FormData();
      form.append('file', file);
      const url = serverUrl(`/api/v2/users/${encodeURIComponent(userId)}/avatar`);
      const response = await authedFetch(new Request(url, { method: 'PUT', body: form }));
      if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => null));
      setFile(null);
      notifications.show({ color: 'green', message: 'Avatar updated.' });
      await queryClient.invalidateQueries({ queryKey: userKeys.one(userId) });
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack gap="xs">
      <Group align="flex-end" gap="sm">
        <FileInput label="Avatar image" description="PNG or JPEG; stored at most 512 px" accept="image/*" value={file} onChange={setFile} clearable w={260} />
        <Button variant="default" onClick={() => void upload()} disabled={file === null} loading={busy}>
          Upload avatar
        </Button>
      </Group>
      <ErrorNote error={error} title="The avatar was refused" />
    </Stack>
  );
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((role, index) => role === b[index]);
}

/**
 * Display name, roles and metadata of a user, and the avatar. PUT /api/v2/users changes only the
 * fields sent, so roles are sent only when changed, and only network admins may change them.
 */
export function ProfileForm({ user }: { user: AdminUser }) {
  const { isNetworkAdmin } = useSession();
  const queryClient = useQueryClient();
  const roleNames = useQuery({ queryKey: userKeys.roles, queryFn: listRoleNames, enabled: isNetworkAdmin });
  const [displayName, setDisplayName] = useState(user.displayName);
  const [roles, setRoles] = useState<string[]>(user.roles);
  const [metadata, setMetadata] = useState(JSON.stringify(user.metadata, null, 2));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const parsed = parseMetadata(metadata);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if ('problem' in parsed) return;
    setBusy(true);
    setError(null);
    try {
      const changedRoles = sameRoles(roles, user.roles) ? {} : { roles };
      const saved = await call(api.PUT('/api/v2/users', { body: { userId: user.userId, displayName, metadata: parsed.value, ...changedRoles } }));
      queryClient.setQueryData(userKeys.one(user.userId), saved);
      notifications.show({ color: 'green', message: 'Profile saved.' });
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="lg">
      <form onSubmit={save} aria-label="Profile">
        <Stack gap="sm" maw={560}>
          <TextInput label="Display name" value={displayName} onChange={(event) => setDisplayName(event.currentTarget.value)} maxLength={200} />
          <TagsInput
            label="Roles"
            description={isNetworkAdmin ? 'Network-wide roles; pick or type a role name and press Enter' : 'Only a network admin changes roles'}
            data={roleNames.data ?? []}
            value={roles}
            onChange={setRoles}
            readOnly={!isNetworkAdmin}
            clearable={isNetworkAdmin}
          />
          <JsonInput
            label="Metadata (JSON)"
            value={metadata}
            onChange={setMetadata}
            autosize
            minRows={3}
            maxRows={14}
            formatOnBlur
            error={'problem' in parsed ? parsed.problem : undefined}
          />
          <ErrorNote error={error} title="The profile was not saved" />
          <Group>
            <Button type="submit" loading={busy} disabled={'problem' in parsed}>
              Save profile
            </Button>
          </Group>
        </Stack>
      </form>
      <AvatarUpload userId={user.userId} />
    </Stack>
  );
}
