import type { Transaction } from 'kysely';
import type { OutboxEvent } from '../events/catalogue.js';
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

/** Told once per commit that appended outbox events, with those events as committed (ids ascending). */
export type EventsCommittedListener = (events: readonly OutboxEvent[]) => void;

/**
 * The commit listeners of each database (the outbox relay of each app built on it), and the events
 * each open transaction appended so far. Keyed by the Kysely objects, so apps built side by side in
 * one process (tests, peers) never hear each other's commits.
 */
const listenersOf = new WeakMap<Executor, Set<EventsCommittedListener>>();
const appendedIn = new WeakMap<Executor, OutboxEvent[]>();

/** Registers a listener for the commits on `db` that append events; answers its removal. */
export function onEventsCommitted(db: Executor, listener: EventsCommittedListener): () => void {
  let listeners = listenersOf.get(db);
  if (!listeners) {
    listeners = new Set();
    listenersOf.set(db, listeners);
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Tells the listeners of `db` about events that are committed: after runTransaction's commit, after
 * an append outside a transaction, and from writers that commit on the raw SQLite connection.
 */
export function announceCommittedEvents(db: Executor, events: readonly OutboxEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listenersOf.get(db) ?? []) {
    try {
      listener(events);
    } catch {
      // A listener's trouble must not fail a write that committed; the relay's poll is the net.
    }
  }
}

/**
 * appendEvents' note of what it wrote. In a transaction the events wait for its commit (runTransaction
 * announces them, a rollback drops them); outside one, the insert has committed already. A transaction
 * not run by runTransaction announces nothing: its events are found by the relay's poll.
 */
export function recordAppendedEvents(executor: Executor, events: readonly OutboxEvent[]): void {
  if (!executor.isTransaction) {
    announceCommittedEvents(executor, events);
    return;
  }
  const appended = appendedIn.get(executor);
  if (appended) appended.push(...events);
  else appendedIn.set(executor, [...events]);
}

const afterCommitOf = new WeakMap<Executor, Array<() => void>>();

function runQuietly(task: () => void): void {
  try {
    task();
  } catch {
    // What runs after a commit tells others of it; its trouble must not fail the write that committed.
  }
}

/**
 * Runs `task` once the transaction `executor` belongs to has committed (at once outside a transaction):
 * notices to other instances and caches go out only for what is really written, and never for a
 * transaction that rolled back. A transaction not run by runTransaction never runs its tasks.
 */
export function afterCommit(executor: Executor, task: () => void): void {
  if (!executor.isTransaction) {
    runQuietly(task);
    return;
  }
  const tasks = afterCommitOf.get(executor);
  if (tasks) tasks.push(task);
  else afterCommitOf.set(executor, [task]);
}

/**
 * `db.transaction().execute(work)`, run again when PostgreSQL aborted it as a deadlock victim or a
 * serialization failure, after a short random pause so the two do not meet again in step. `work` must
 * touch nothing but the transaction (or only what is safe to redo), since it may run more than once.
 * Once it commits, the events it appended are announced to the commit listeners of `db` (the relay).
 */
export async function runTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  // Called with a command's transaction: the work joins it, and the outermost run commits, retries and announces.
  if (db.isTransaction) return work(db as Transaction<Database>);
  for (let attempt = 1; ; attempt += 1) {
    // What this attempt appended and asked to run after commit, taken when work ends; used only once the commit succeeded.
    const appended: { events?: OutboxEvent[] | undefined; after?: Array<() => void> | undefined } = {};
    try {
      const result = await db.transaction().execute(async (trx) => {
        const value = await work(trx);
        appended.events = appendedIn.get(trx);
        appended.after = afterCommitOf.get(trx);
        return value;
      });
      if (appended.events) announceCommittedEvents(db, appended.events);
      for (const task of appended.after ?? []) runQuietly(task);
      return result;
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}
