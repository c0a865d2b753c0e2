import { sql } from 'kysely';
import type { Dialect, Executor } from './database.js';

/** Tries of a truncating checkpoint that finds the WAL busy, and the pause between two. */
const ATTEMPTS = 50;
const PAUSE_MS = 100;

/**
 * Copies every frame of the SQLite WAL into the database file and truncates the WAL to zero bytes, so
 * no old page image a delete made obsolete stays in it. WAL frames are never rewritten in place: the
 * frames that held a row before its delete stay in the -wal file until the WAL restarts and new frames
 * happen to cover them, and the file is reused, not shrunk (checkpointer.ts), so without this a deleted
 * text can stay there indefinitely. secure_delete (database.ts) clears the pages themselves.
 *
 * Erasure and retention call this once their deletes have committed. It runs on the one connection
 * through Kysely, so it waits for a transaction in progress rather than interleaving with it. The
 * background checkpointer holding the checkpoint lock, or another connection reading an older snapshot
 * (a backup), makes the checkpoint answer busy; SQLite's busy handler would wait for those on the event
 * loop's thread, so it is off for the call and the tries are spaced by timers instead. Throws when
 * the WAL stays busy through every try. A no-op on PostgreSQL.
 */
export async function truncateWal(db: Executor, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite') return;
  for (let attempt = 1; ; attempt += 1) {
    const busy = await db.connection().execute(async (connection) => {
      const { rows: timeout } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(connection);
      await sql`pragma busy_timeout = 0`.execute(connection);
      try {
        const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(connection);
        return rows[0]?.busy !== 0;
      } finally {
        await sql.raw(`pragma busy_timeout = ${Number(timeout[0]?.timeout ?? 0)}`).execute(connection);
      }
    });
    if (!busy) return;
    if (attempt >= ATTEMPTS)
      throw new Error(`the SQLite WAL stayed busy for ${(ATTEMPTS * PAUSE_MS) / 1000} s and was not truncated: another connection holds it`);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
}
