import type { Executor } from '../../storage/database.js';
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
