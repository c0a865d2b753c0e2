import type { Clock } from '../../clock.js';
import { newestFirstPage } from '../../shared/keyset.js';
import type { PageTokens, Paging } from '../../shared/paging.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { afterCommit, runTransaction } from '../../storage/transactions.js';
import { createAuditRecorder, type AuditRecorderDeps } from './audit.recorder.js';
import { createAuditStore } from './audit.store.js';
import type { AuditInput, AuditNote, AuditRow, AuditTarget } from './audit.types.js';

export interface ListAuditInput {
  actor?: string;
  target?: string;
  operation?: string;
  /** Bounds of the entries' time, ms: from inclusive, to exclusive. */
  from?: number;
  to?: number;
  pageToken?: string;
  limit?: number;
}

/** The filters of an audit list, as its tokens carry them. */
interface AuditFilters extends Record<string, unknown> {
  a: string | null;
  t: string | null;
  o: string | null;
  f: number | null;
  u: number | null;
}

const NO_FILTERS: AuditFilters = { a: null, t: null, o: null, f: null, u: null };
const nullOr = (value: unknown, type: 'string' | 'number') => value === null || typeof value === type;
const isAuditFilters = (value: unknown): value is AuditFilters => {
  const v = value as Partial<AuditFilters> | null;
  return (
    v !== null &&
    typeof v === 'object' &&
    nullOr(v.a, 'string') &&
    nullOr(v.t, 'string') &&
    nullOr(v.o, 'string') &&
    nullOr(v.f, 'number') &&
    nullOr(v.u, 'number')
  );
};
const DEFAULT_LIMIT = 20;
/** Entries deleted per transaction by the prune, and batches per run (the next run goes on). */
const PRUNE_BATCH = 500;
const PRUNE_BATCHES_PER_RUN = 200;
/** The pause between two batches, so other writers get the database in between. */
const PRUNE_PAUSE_MS = 20;
/** The settings row of the prune: when its last run began. It runs once per interval per deployment. */
const PRUNED_AT_KEY = 'audit_pruned_at';
const PRUNE_INTERVAL_MS = 60 * 60_000;
/** How often each instance looks whether the prune is due, the first time soon after start. */
const PRUNE_CHECK_MS = 10 * 60_000;
const PRUNE_FIRST_CHECK_MS = 60_000;

export interface AuditDeps extends AuditRecorderDeps {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  pageTokens: PageTokens;
  /** Entries older than this are pruned (PARLEY_AUDIT_RETENTION_DAYS). */
  retentionMs: number;
  onBackgroundError: (error: unknown) => void;
}

/**
 * The audit trail of administrative actions: the surfaces record each action as it is answered; the
 * admin API lists them; a background job prunes what is older than the retention period.
 */
export function createAuditService(deps: AuditDeps) {
  const store = createAuditStore(deps.db);
  const recorder = createAuditRecorder(deps);
  const timers: NodeJS.Timeout[] = [];
  let pruning: Promise<unknown> | null = null;
  let stopped = false;

  /** Deletes the entries older than the retention period, a batch per transaction; answers how many. */
  async function pruneExpired(): Promise<number> {
    const before = deps.clock.now() - deps.retentionMs;
    let removed = 0;
    for (let batch = 0; batch < PRUNE_BATCHES_PER_RUN && !stopped; batch += 1) {
      if (batch > 0) await new Promise((resolve) => setTimeout(resolve, PRUNE_PAUSE_MS));
      const count = await runTransaction(deps.db, async (trx) => {
        const scoped = createAuditStore(trx);
        const ids = await scoped.idsBefore(before, PRUNE_BATCH);
        await scoped.deleteEntries(ids);
        return ids.length;
      });
      removed += count;
      if (count < PRUNE_BATCH) break;
    }
    return removed;
  }

  /**
   * The prune, when this instance claims this interval's run (outbox pruning's mechanism: a settings
   * row locked, skipped while another instance holds it); null when another instance or an earlier
   * run within the interval has it.
   */
  async function pruneIfDue(): Promise<number | null> {
    await store.ensureSetting(PRUNED_AT_KEY);
    const now = deps.clock.now();
    const claimed = await runTransaction(deps.db, (trx) => createAuditStore(trx).claimRun(deps.dialect, PRUNED_AT_KEY, now, PRUNE_INTERVAL_MS));
    return claimed ? pruneExpired() : null;
  }

  function check(): void {
    if (pruning) return;
    pruning = pruneIfDue()
      .catch((error: unknown) => deps.onBackgroundError(error))
      .finally(() => {
        pruning = null;
      });
  }

  return {
    record: recorder.record,
    flush: recorder.flush,
    pruneExpired,
    pruneIfDue,

    /** One page of entries, newest first, with the tokens of the pages around it. */
    async list(input: ListAuditInput): Promise<{ rows: AuditRow[]; paging: Paging }> {
      // What this instance answered so far is in the list (a caller reads its own actions back).
      await recorder.flush();
      const requested: AuditFilters = {
        a: input.actor ?? null,
        t: input.target ?? null,
        o: input.operation ?? null,
        f: input.from ?? null,
        u: input.to ?? null,
      };
      const { items, paging } = await newestFirstPage({
        pageTokens: deps.pageTokens,
        pageToken: input.pageToken,
        limit: input.limit,
        defaultLimit: DEFAULT_LIMIT,
        filters: requested,
        unfiltered: { filters: NO_FILTERS, isFilters: isAuditFilters },
        fetch: (limit, cursor, filters) =>
          store.page({ actor: filters.a, target: filters.t, operation: filters.o, from: filters.f, to: filters.u, limit, cursor }),
        keyOf: (row) => ({ at: row.at, id: row.id }),
      });
      return { rows: items, paging };
    },

    /** A note for a command about to run; the admin token's name is read now, outside the command's transaction. */
    async note(input: Omit<AuditNote, 'written'>): Promise<AuditNote> {
      await recorder.learnTokenNames([{ ...input, at: 0, targets: [], status: 200, errorCode: null }]);
      return { ...input, written: false };
    },

    /**
     * The command's entry, written in its transaction `trx` with the targets it acted on: the entry
     * commits with the change or not at all. The note counts as written once the transaction commits.
     */
    async writeIn(trx: Executor, note: AuditNote, targets: AuditTarget[]): Promise<void> {
      const { written: _written, ...input } = note;
      const { entries, targets: rows } = recorder.rowsOf([{ ...input, at: deps.clock.now(), targets, status: 200, errorCode: null }]);
      await createAuditStore(trx).insertEntries(entries, rows);
      afterCommit(trx, () => {
        note.written = true;
      });
    },

    /**
     * An action of the `parley` command (admin tokens, OAuth clients), written at once: the command
     * exits when it is done, so nothing may wait for a later batch.
     */
    async recordCliAction(command: string, operation: string, targets: AuditTarget[]): Promise<void> {
      const input: AuditInput = {
        at: deps.clock.now(),
        actor: { type: 'cli' },
        operation,
        method: 'CLI',
        route: command,
        targets,
        status: 200,
        errorCode: null,
        requestId: null,
      };
      recorder.record(input);
      await recorder.flush();
    },

    /** Checks now and then whether this instance should run the prune. */
    start(): void {
      timers.push(setTimeout(check, PRUNE_FIRST_CHECK_MS), setInterval(check, PRUNE_CHECK_MS));
      for (const timer of timers) timer.unref();
    },

    /** Stops the prune checks and writes what is queued. */
    async close(): Promise<void> {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await pruning;
      await recorder.close();
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
