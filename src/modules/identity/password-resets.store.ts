import type { Executor } from '../../storage/database.js';
import type { PasswordResetsTable } from '../../storage/schema.js';

export type PasswordResetRow = PasswordResetsTable;

/** Password-reset links: one row per user at most, found by the SHA-256 of the link's token. */
export function createPasswordResetsStore(db: Executor) {
  return {
    /** Writes the user's link, replacing the one they had: the earlier token stops working. */
    async replace(row: PasswordResetRow): Promise<void> {
      await db
        .insertInto('password_resets')
        .values(row)
        .onConflict((conflict) =>
          conflict.column('user_id').doUpdateSet({ token_hash: row.token_hash, expires_at: row.expires_at, created_at: row.created_at }),
        )
        .execute();
    },

    async find(tokenHash: string): Promise<PasswordResetRow | undefined> {
      const row = await db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row === undefined ? undefined : { ...row, expires_at: Number(row.expires_at), created_at: Number(row.created_at) };
    },

    /** Deletes the link if it is still live; answers whether this call consumed it (one caller wins). */
    async consume(tokenHash: string, userId: string, now: number): Promise<boolean> {
      const result = await db
        .deleteFrom('password_resets')
        .where('token_hash', '=', tokenHash)
        .where('user_id', '=', userId)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async deleteExpired(now: number): Promise<void> {
      await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
    },
  };
}

export type PasswordResetsStore = ReturnType<typeof createPasswordResetsStore>;
