import type { Executor } from '../../storage/database.js';
import type { LoginSessionsTable } from '../../storage/schema.js';

export type SessionRow = LoginSessionsTable;

/** Login sessions (the browser's sign-in at this server) and the failed-attempt log of the throttle. */
export function createSessionsStore(db: Executor) {
  return {
    async insertSession(row: SessionRow): Promise<void> {
      await db.insertInto('login_sessions').values(row).execute();
    },

    async findSession(idHash: string): Promise<SessionRow | undefined> {
      return db.selectFrom('login_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    },

    async touchSession(idHash: string, now: number): Promise<void> {
      await db.updateTable('login_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
    },

    /** Ends a session: the row goes, so nothing of the sign-in stays behind once the person signs out. */
    async deleteSession(idHash: string): Promise<void> {
      await db.deleteFrom('login_sessions').where('id_hash', '=', idHash).execute();
    },

    async recordFailure(keys: readonly string[], now: number): Promise<void> {
      await db
        .insertInto('login_failures')
        .values(keys.map((key) => ({ throttle_key: key, failed_at: now })))
        .execute();
    },

    /** Failures per key since a moment, with the oldest of them (when the window frees up). */
    async countFailures(keys: readonly string[], since: number): Promise<Array<{ key: string; failures: number; oldest: number }>> {
      const rows = await db
        .selectFrom('login_failures')
        .select((eb) => ['throttle_key', eb.fn.countAll<number | string>().as('failures'), eb.fn.min<number | string>('failed_at').as('oldest')])
        .where('throttle_key', 'in', keys)
        .where('failed_at', '>', since)
        .groupBy('throttle_key')
        .execute();
      return rows.map((row) => ({ key: row.throttle_key, failures: Number(row.failures), oldest: Number(row.oldest) }));
    },

    async clearFailures(key: string): Promise<void> {
      await db.deleteFrom('login_failures').where('throttle_key', '=', key).execute();
    },

    async deleteExpired(now: number, failureWindowMs: number): Promise<void> {
      await db.deleteFrom('login_sessions').where('expires_at', '<', now).execute();
      await db
        .deleteFrom('login_failures')
        .where('failed_at', '<', now - failureWindowMs)
        .execute();
    },
  };
}

export type SessionsStore = ReturnType<typeof createSessionsStore>;
