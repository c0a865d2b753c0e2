import { AppError } from '../../http/errors.js';
import type { Executor } from '../../storage/database.js';
import { parseJson } from '../channels/channels.present.js';
import { isPermission, type Permission } from './permissions.js';

/**
 * What a user may do as a moderator: the permissions of their global roles (users.roles) and of
 * their roles inside the channel at hand (channel_members.roles, while they are a member of it),
 * looked up in the roles table.
 */
export function createPermissionsService(deps: { db: Executor }) {
  async function permissionsOf(userId: string, channelId: string | null): Promise<Set<Permission>> {
    const user = await deps.db.selectFrom('users').select('roles').where('id', '=', userId).executeTakeFirst();
    const roleNames = new Set(parseJson<string[]>(user?.roles ?? '[]', []));
    if (channelId !== null) {
      const member = await deps.db
        .selectFrom('channel_members')
        .select('roles')
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        // A ban keeps the row (membership 'banned') with its roles; they count only for a member.
        .where('membership', '=', 'member')
        .executeTakeFirst();
      for (const role of parseJson<string[]>(member?.roles ?? '[]', [])) roleNames.add(role);
    }
    if (roleNames.size === 0) return new Set();
    const roles = await deps.db.selectFrom('roles').select('permissions').where('public_id', 'in', [...roleNames]).execute();
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
