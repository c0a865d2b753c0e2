import { Button, Center, Checkbox, Group, Loader, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { FormCard } from '../components/FormCard.js';
import type { Role } from '../api/types.js';
import { ConfirmAction } from '../components/ConfirmAction.js';
import { ErrorNote } from '../components/ErrorNote.js';
import { Page } from '../components/Page.js';
import { rolesQuery, useCreateRole, useDeleteRole, useSaveRole } from './roles/api.js';
import { permissionLabel } from './roles/permissions.js';

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item) => b.includes(item));

const stickyCell = { position: 'sticky', left: 0, background: 'var(--mantine-color-body)', zIndex: 1 } as const;

/** One role's row: its permissions as checkboxes, saved together with "Save"; the error stays beside it. */
function RoleRow({ role, catalogue }: { role: Role; catalogue: string[] }) {
  const [draft, setDraft] = useState<string[]>(role.permissions);
  const changed = !sameSet(draft, role.permissions);
  const save = useSaveRole(role.publicId);
  const remove = useDeleteRole();
  const toggle = (permission: string, on: boolean) => {
    save.reset();
    setDraft((current) => (on ? [...current, permission] : current.filter((item) => item !== permission)));
  };
  return (
    <>
      <Table.Tr>
        <Table.Th scope="row" style={stickyCell}>
          {role.publicId}
        </Table.Th>
        {catalogue.map((permission) => (
          <Table.Td key={permission} ta="center">
            <Checkbox
              aria-label={`${permissionLabel(permission)} (${role.publicId})`}
              checked={draft.includes(permission)}
              onChange={(event) => toggle(permission, event.currentTarget.checked)}
              style={{ display: 'inline-block' }}
            />
          </Table.Td>
        ))}
        <Table.Td>
          <Group gap="xs" wrap="nowrap">
            <Button
              size="compact-sm"
              onClick={() => save.mutate(catalogue.filter((permission) => draft.includes(permission)))}
              disabled={!changed}
              loading={save.isPending}
              aria-label={`Save the permissions of ${role.publicId}`}
            >
              Save
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              onClick={() => setDraft(role.permissions)}
              disabled={!changed || save.isPending}
              aria-label={`Undo the changes to the permissions of ${role.publicId}`}
            >
              Undo
            </Button>
            <ConfirmAction
              label="Delete role"
              name={`Delete role ${role.publicId}`}
              title={`Delete the role ${role.publicId}?`}
              message="A role still held by users or channel members is not deleted: the server names them, and you take it from them first."
              size="compact-sm"
              onConfirm={() => remove.mutateAsync(role.publicId)}
            />
          </Group>
        </Table.Td>
      </Table.Tr>
      {save.error !== null && (
        <Table.Tr>
          <Table.Td colSpan={catalogue.length + 2}>
            <ErrorNote error={save.error} title={`The permissions of ${role.publicId} were not saved`} />
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

function CreateRole({ taken }: { taken: readonly string[] }) {
  const [name, setName] = useState('');
  const create = useCreateRole({ onSuccess: () => setName('') });
  const exists = taken.includes(name.trim());
  return (
    <FormCard
      title="Create a role"
      onSubmit={() => {
        if (!exists) create.mutate(name.trim());
      }}
    >
      <Group align="flex-end" gap="xs" wrap="wrap">
        <TextInput
          label="Role name"
          description="Users and channel members hold roles by this name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={exists ? 'A role of this name exists.' : undefined}
          style={{ flex: '1 1 14rem' }}
        />
        <Button type="submit" loading={create.isPending} disabled={name.trim() === '' || exists}>
          Create role
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        A new role grants nothing: tick its permissions in the table, then save.
      </Text>
      <ErrorNote error={create.error} title="The role was not created" />
    </FormCard>
  );
}

/** /roles: which permission each role grants, as a matrix of checkboxes saved a role at a time. */
export function RolesScreen() {
  const roles = useQuery(rolesQuery());
  const catalogue = roles.data?.permissions ?? [];
  const list = roles.data?.roles ?? [];
  return (
    <Page title="Roles">
      <CreateRole taken={list.map((role) => role.publicId)} />
      <ErrorNote error={roles.error} title="The roles could not be read" />
      {roles.isLoading ? (
        <Center p="md">
          <Loader aria-label="Loading roles" />
        </Center>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped captionSide="top" verticalSpacing="xs">
            <Table.Caption>Permissions of each role</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th style={stickyCell}>Role</Table.Th>
                {catalogue.map((permission) => (
                  <Table.Th key={permission} style={{ fontSize: 'var(--mantine-font-size-xs)', maxWidth: '7.5rem', textAlign: 'center' }}>
                    {permissionLabel(permission)}
                    <Text component="code" display="block" size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                      {permission}
                    </Text>
                  </Table.Th>
                ))}
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((role) => (
                <RoleRow key={`${role.publicId}:${role.updatedAt}`} role={role} catalogue={catalogue} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {!roles.isLoading && list.length === 0 && !roles.error && <Text c="dimmed">No roles yet.</Text>}
    </Page>
  );
}
