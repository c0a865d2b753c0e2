import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import type { AuditLogTable, AuditTargetsTable } from '../../storage/schema.js';
import { runTransaction } from '../../storage/transactions.js';
import { createAuditStore } from './audit.store.js';
import type { AuditActor, AuditInput } from './audit.types.js';

/** Entries written per transaction. */
const WRITE_BATCH = 500;
/** Entries waiting beyond this (the database is down or far behind) are logged instead of kept. */
const MAX_PENDING = 10_000;

export interface AuditRecorderDeps {
  db: Executor;
  /** The admin tokens' ids and names, read when an entry names a token id not seen yet. */
  adminTokenNames: () => Promise<ReadonlyArray<{ id: string; name: string | null }>>;
  /** Told of entries that could not be written, with why: the log keeps them instead. */
  onLost: (error: unknown, entries: readonly AuditInput[]) => void;
}

/**
 * Writes audit entries after their responses went out, gathered into one transaction per batch: an
 * entry costs its request nothing but a push, and a burst of admin writes (message creates from a
 * script) costs one insert per batch rather than one commit per request. An entry is lost only when
 * the process dies in the milliseconds before its batch commits; a failed write hands its entries to
 * `onLost`, which logs them whole (they hold ids only), so none disappears silently.
 */
export function createAuditRecorder(deps: AuditRecorderDeps) {
  const pending: AuditInput[] = [];
  let writing: Promise<void> | null = null;
  let closed = false;
  // Entries queued and entries written (or handed to onLost) so far: a flush waits for its own only.
  let recorded = 0;
  let settled = 0;
  let waiters: Array<{ upTo: number; resolve: () => void }> = [];
  // Token ids never change their name; a token revoked meanwhile keeps its row.
  const tokenNames = new Map<string, string>();

  /** Reads the admin tokens' names once when the batch names a token not seen yet. */
  async function learnTokenNames(batch: readonly AuditInput[]): Promise<void> {
    if (!batch.some((input) => input.actor.type === 'admin' && !tokenNames.has(input.actor.tokenId))) return;
    for (const token of await deps.adminTokenNames()) if (token.name !== null) tokenNames.set(token.id, token.name);
  }

  function actorOf(actor: AuditActor): { name: string; userId: string | null } {
    if (actor.type === 'cli') return { name: 'cli', userId: null };
    if (actor.type === 'user') return { name: actor.userId, userId: actor.userId };
    // An admin token acts as the user `admin-<name>` (tokens.service.ts): its name, should its row be gone.
    return { name: tokenNames.get(actor.tokenId) ?? actor.userId.replace(/^admin-/, ''), userId: actor.userId };
  }

  function rowsOf(batch: readonly AuditInput[]): { entries: AuditLogTable[]; targets: AuditTargetsTable[] } {
    const entries: AuditLogTable[] = [];
    const targets: AuditTargetsTable[] = [];
    for (const input of batch) {
      const actor = actorOf(input.actor);
      const id = newObjectId(input.at);
      entries.push({
        id,
        at: input.at,
        actor_type: input.actor.type,
        actor: actor.name,
        actor_user_id: actor.userId,
        operation: input.operation,
        method: input.method,
        route: input.route,
        targets: JSON.stringify(input.targets.map((target) => [target.field, target.id])),
        status: input.status,
        error_code: input.errorCode,
        request_id: input.requestId,
      });
      // One row per distinct id: a channel named in the path and the body is one target.
      const distinct = new Set<string>();
      for (const target of input.targets) {
        if (distinct.has(target.id)) continue;
        distinct.add(target.id);
        targets.push({ entry_id: id, target_id: target.id, at: input.at });
      }
    }
    return { entries, targets };
  }

  async function write(batch: readonly AuditInput[]): Promise<void> {
    await learnTokenNames(batch);
    const { entries, targets } = rowsOf(batch);
    await runTransaction(deps.db, (trx) => createAuditStore(trx).insertEntries(entries, targets));
  }

  async function drain(): Promise<void> {
    // A turn of the event loop first, so the entries of requests answered together share a batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (pending.length > 0) {
      const batch = pending.splice(0, WRITE_BATCH);
      try {
        await write(batch);
      } catch (error) {
        lose(error, batch);
      }
      settle(batch.length);
    }
  }

  function lose(error: unknown, entries: readonly AuditInput[]): void {
    try {
      deps.onLost(error, entries);
    } catch {
      // The logger failing too leaves nothing else to tell; the request was answered already.
    }
  }

  function settle(count: number): void {
    settled += count;
    const due = waiters.filter((waiter) => waiter.upTo <= settled);
    waiters = waiters.filter((waiter) => waiter.upTo > settled);
    for (const waiter of due) waiter.resolve();
  }

  /** Resolves once the entries recorded so far are settled; later ones are not waited for. */
  function settledUpToNow(): Promise<void> {
    const upTo = recorded;
    if (settled >= upTo) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ upTo, resolve }));
  }

  function startWriting(): void {
    writing = drain().finally(() => {
      writing = null;
      if (pending.length > 0) startWriting();
    });
  }

  return {
    /** Learns the name of the entry's admin token before a command writes it in its own transaction. */
    learnTokenNames,
    /** The rows of these entries, as the recorder writes them. */
    rowsOf,

    /** Queues an entry; never throws and never waits. */
    record(entry: AuditInput): void {
      if (closed || pending.length >= MAX_PENDING) {
        lose(new Error(closed ? 'the audit recorder is closed' : 'too many audit entries are waiting to be written'), [entry]);
        return;
      }
      pending.push(entry);
      recorded += 1;
      if (writing === null) startWriting();
    },

    /** Resolves once every entry recorded before the call was written (or handed to onLost). */
    flush: settledUpToNow,

    /** Refuses further entries and waits for the queued ones. */
    async close(): Promise<void> {
      closed = true;
      await settledUpToNow();
    },
  };
}

export type AuditRecorder = ReturnType<typeof createAuditRecorder>;
