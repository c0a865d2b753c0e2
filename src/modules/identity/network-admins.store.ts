import type { Executor } from '../../storage/database.js';
import type { UserRow } from '../users/users.types.js';

/** The users rows of network admins (people of kind 'admin' who sign in to the console with a password), read; users.service writes them. */
export function createNetworkAdminsStore(db: Executor) {
  return {
    /** The user holding this id or this username, if any. */
    async findByIdOrUsername(id: string, username: string): Promise<Pick<UserRow, 'id' | 'username' | 'kind'> | undefined> {
      return db
        .selectFrom('users')
        .select(['id', 'username', 'kind'])
        .where((eb) => eb.or([eb('id', '=', id), eb('username', '=', username)]))
        .executeTakeFirst();
    },

    /** Whether a network admin who can sign in exists (admin tokens' accounts have no password). */
    async anyWithPassword(): Promise<boolean> {
      const row = await db.selectFrom('users').select('id').where('kind', '=', 'admin').where('password_hash', 'is not', null).limit(1).executeTakeFirst();
      return row !== undefined;
    },
  };
}
