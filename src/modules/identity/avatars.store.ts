import type { Executor } from '../../storage/database.js';
import type { AvatarsTable } from '../../storage/schema.js';

export type AvatarRow = AvatarsTable;

/** Avatar rows, and the users row's pointer to the current one (read here, written by the users module). */
export function createAvatarsStore(db: Executor) {
  return {
    /** The user's current avatar id; undefined when the user does not exist. */
    async currentAvatarOf(userId: string): Promise<{ avatar: string | null } | undefined> {
      return db.selectFrom('users').select('avatar').where('id', '=', userId).executeTakeFirst();
    },

    async insert(row: AvatarRow): Promise<void> {
      await db.insertInto('avatars').values(row).execute();
    },

    async delete(avatarId: string): Promise<void> {
      await db.deleteFrom('avatars').where('id', '=', avatarId).execute();
    },

    /** Every avatar row of the user, current and former. */
    async deleteAllOf(userId: string): Promise<void> {
      await db.deleteFrom('avatars').where('user_id', '=', userId).execute();
    },

    async find(avatarId: string): Promise<AvatarRow | undefined> {
      return db.selectFrom('avatars').selectAll().where('id', '=', avatarId).executeTakeFirst();
    },

    /** Which of these avatar ids still have a row. */
    async heldIds(avatarIds: readonly string[]): Promise<Set<string>> {
      if (avatarIds.length === 0) return new Set();
      return new Set((await db.selectFrom('avatars').select('id').where('id', 'in', avatarIds).execute()).map((row) => row.id));
    },
  };
}
