import { Button, FileInput, Group, JsonInput, Stack, TagsInput, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type { AdminUser } from '../../api/types.js';
import { useSession } from '../../auth/session.js';
import { ErrorNote } from '../../components/ErrorNote.js';
import { roleNamesQuery, useSaveProfile, useUploadAvatar } from './api.js';

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
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const uploadAvatar = useUploadAvatar(userId, {
    onSuccess: () => {
      setFile(null);
      notifications.show({ color: 'green', message: 'Avatar updated.' });
    },
  });
  const upload = async () => {
    if (file === null) return;
    setBusy(true);
    setError(null);
    try {
      await uploadAvatar.mutateAsync(file);
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
  const roleNames = useQuery({ ...roleNamesQuery(), enabled: isNetworkAdmin });
  const saveProfile = useSaveProfile();
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
      await saveProfile.mutateAsync({ userId: user.userId, displayName, metadata: parsed.value, ...changedRoles });
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
