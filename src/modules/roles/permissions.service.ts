import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { parseJson } from '../../shared/values.js';
import { isPermission, type Permission } from './permissions.js';
import { createRolesStore } from './roles.store.js';

/**
 * What a user may do as a moderator: the permissions of their global roles (users.roles) and of
 * their roles inside the channel at hand (channel_members.roles, while they are a member of it),
 * looked up in the roles table.
 */
export function createPermissionsService(deps: { db: Executor }) {
  const store = createRolesStore(deps.db);

  async function permissionsOf(userId: string, channelId: string | null): Promise<Set<Permission>> {
    const roleNames = new Set(parseJson<string[]>((await store.globalRolesOf(userId)) ?? '[]', []));
    if (channelId !== null) {
      for (const role of parseJson<string[]>((await store.channelRolesOf(channelId, userId)) ?? '[]', [])) roleNames.add(role);
    }
    if (roleNames.size === 0) return new Set();
    const roles = await store.list([...roleNames]);
    const granted = new Set<Permission>();
    for (const role of roles) for (const name of parseJson<string[]>(role.permissions, [])) if (isPermission(name)) granted.add(name);
    return granted;
  }

  return {
    permissionsOf,
    async has(userId: string, permission: Permission, channelId: string | null): Promise<boolean> {
      return (await permissionsOf(userId, channelId)).has(permission);
    },
    /** 403 / 400301 unless the user holds the permission. */
    async require(userId: string, permission: Permission, channelId: string | null): Promise<void> {
      if (!(await permissionsOf(userId, channelId)).has(permission)) {
        throw new AppError('permissionDenied', `Permission ${permission} is required.`);
      }
    },
  };
}

export type PermissionsService = ReturnType<typeof createPermissionsService>;
