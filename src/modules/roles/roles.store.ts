import type { Executor } from '../../storage/database.js';
import { parseJson } from '../../shared/values.js';
import type { RoleRow } from './roles.types.js';

export function createRolesStore(db: Executor) {
  return {
    async list(publicIds: readonly string[] | null): Promise<RoleRow[]> {
      let select = db.selectFrom('roles').selectAll();
      if (publicIds !== null) {
        if (publicIds.length === 0) return [];
        select = select.where('public_id', 'in', publicIds);
      }
      return select.orderBy('public_id').execute();
    },

    /** The JSON list of the user's global roles (users.roles); undefined when there is no such user. */
    async globalRolesOf(userId: string): Promise<string | undefined> {
      return (await db.selectFrom('users').select('roles').where('id', '=', userId).executeTakeFirst())?.roles;
    },

    /** The JSON list of the user's roles inside a channel, while they are a member of it. */
    async channelRolesOf(channelId: string, userId: string): Promise<string | undefined> {
      const member = await db
        .selectFrom('channel_members')
        .select('roles')
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        // A ban keeps the row (membership 'banned') with its roles; they count only for a member.
        .where('membership', '=', 'member')
        .executeTakeFirst();
      return member?.roles;
    },

    /**
     * The users (global roles) and channel rows (roles inside a channel) that name the role. The LIKE
     * only narrows the scan: the JSON lists are read to keep exact names (LIKE's `_` and case folding).
     */
    async holdersOf(publicId: string): Promise<{ userIds: string[]; memberships: Array<{ channelId: string; userId: string }> }> {
      const needle = `%${JSON.stringify(publicId)}%`;
      const holds = (roles: string) => parseJson<string[]>(roles, []).includes(publicId);
      const users = await db.selectFrom('users').select(['id', 'roles']).where('roles', 'like', needle).orderBy('id').execute();
      const members = await db
        .selectFrom('channel_members')
        .select(['channel_id', 'user_id', 'roles'])
        .where('roles', 'like', needle)
        .orderBy('channel_id')
        .orderBy('user_id')
        .execute();
      return {
        userIds: users.filter((row) => holds(row.roles)).map((row) => row.id),
        memberships: members.filter((row) => holds(row.roles)).map((row) => ({ channelId: row.channel_id, userId: row.user_id })),
      };
    },

    /** Deletes the role; answers whether it existed. */
    async delete(publicId: string): Promise<boolean> {
      const result = await db.deleteFrom('roles').where('public_id', '=', publicId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Creates each role or replaces its permissions, keeping createdAt of existing ones. */
    async upsert(publicIds: readonly string[], permissions: string, now: number): Promise<void> {
      await db
        .insertInto('roles')
        .values(publicIds.map((publicId) => ({ public_id: publicId, permissions, created_at: now, updated_at: now })))
        .onConflict((oc) => oc.column('public_id').doUpdateSet({ permissions, updated_at: now }))
        .execute();
    },
  };
}
