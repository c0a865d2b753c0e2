import type { Transaction } from 'kysely';
import type { Executor } from './database.js';
import type { Database } from './schema.js';

/**
 * PostgreSQL's deadlock_detected (40P01) and serialization_failure (40001): the server rolled the whole
 * transaction back and says that running it again may well succeed. The lock orders in this code are
 * chosen to avoid deadlocks (channels in id order, the activity clock first), so this is the net for an
 * order nobody foresaw, not a path the code relies on. SQLite runs one write transaction at a time.
 */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
/** Runs in all, the first included. */
const MAX_ATTEMPTS = 4;

function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

export function isRetryableConflict(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/** A unique index refused the write (PostgreSQL 23505, or SQLite's constraint message). */
export function isUniqueViolation(error: unknown): boolean {
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  return codeOf(error) === '23505' || (typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}

/**
 * `db.transaction().execute(work)`, run again when PostgreSQL aborted it as a deadlock victim or a
 * serialization failure, after a short random pause so the two do not meet again in step. `work` must
 * touch nothing but the transaction (or only what is safe to redo), since it may run more than once.
 */
export async function runTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
