import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Dialect, Executor } from '../storage/database.js';
import { periodicLooks } from '../shared/periodic.js';
import { runTransaction } from '../storage/transactions.js';
import { ensureSetting, writeSetting } from '../storage/settings.js';
import type { EventType, OutboxEvent } from './catalogue.js';
import { latestEventId, readEventsAfter } from './outbox.js';
import type { OutboxRelay } from './relay.js';

/**
 * Durable consumers of the outbox (the tray, webhook scheduling). Each has a cursor row; a batch is
 * handled in one transaction with the cursor's advance, so effects that are database writes happen
 * exactly once even across crashes. On PostgreSQL the cursor row is claimed with FOR UPDATE SKIP
 * LOCKED, so with several instances one of them handles a given consumer at a time.
 */
export type ConsumerHandler<T extends EventType = EventType> = (trx: Executor, events: OutboxEvent<T>[]) => Promise<void>;

/** How long wake-ups from the relay are gathered before a consumer runs (see register). */
const COALESCE_MS = 25;

interface Consumer {
  name: string;
  /** Takes the events of `types` only (register keeps the two together). */
  handler: ConsumerHandler;
  /** Only these event types reach the handler; the cursor moves past the rest. */
  types: ReadonlySet<EventType>;
  /**
   * What the relay handed over since the last run: every event in (after, last id], already read. When
   * the claimed cursor is `after`, the batch is taken from here instead of being read again.
   */
  seen: { after: number; events: OutboxEvent[] } | null;
}

/** The consumer's cursor, locked for this transaction; null while another instance holds it. */
async function claim(trx: Executor, dialect: Dialect, name: string): Promise<number | null> {
  const locking = dialect === 'postgres' ? sql` for update skip locked` : sql``;
  const result = await sql<{ last_id: number }>`select last_id from outbox_consumers where name = ${name}${locking}`.execute(trx);
  const row = result.rows[0];
  return row ? Number(row.last_id) : null;
}

/** Keeps what the relay handed over while contiguous and at most a batch; otherwise the run reads from the database. */
function keepHanded(consumer: Consumer, events: OutboxEvent[], afterId: number, batchSize: number): void {
  const seen = consumer.seen;
  if (seen !== null && seen.events.at(-1)?.id === afterId && seen.events.length + events.length <= batchSize) seen.events.push(...events);
  else consumer.seen = { after: afterId, events: [...events] };
}

export function createConsumerRunner(deps: { db: Executor; dialect: Dialect; clock: Clock; relay: OutboxRelay; batchSize?: number }) {
  const consumers: Consumer[] = [];
  const batchSize = deps.batchSize ?? 500;
  const running = new Map<string, Promise<void>>();
  const rerun = new Set<string>();

  /** Handles one batch; answers whether more may be waiting. */
  async function runBatch(consumer: Consumer): Promise<boolean> {
    return runTransaction(deps.db, async (trx) => {
      const lastId = await claim(trx, deps.dialect, consumer.name);
      if (lastId === null) return false; // another instance holds it
      // The relay's events are complete for their range (outbox ids follow commit order, outbox.ts), so
      // when they start right at the cursor they are exactly what the read would answer, up to their end.
      const seen = consumer.seen;
      consumer.seen = null;
      const events = seen && seen.after === lastId ? seen.events.slice(0, batchSize) : await readEventsAfter(trx, lastId, batchSize);
      if (events.length === 0) return false;
      const relevant = events.filter((event) => consumer.types.has(event.type));
      if (relevant.length > 0) await consumer.handler(trx, relevant);
      const newLast = events[events.length - 1]?.id ?? lastId;
      await trx.updateTable('outbox_consumers').set({ last_id: newLast, updated_at: deps.clock.now() }).where('name', '=', consumer.name).execute();
      return events.length === batchSize;
    });
  }

  function run(consumer: Consumer): Promise<void> {
    const current = running.get(consumer.name);
    if (current) {
      rerun.add(consumer.name);
      return current;
    }
    const work = (async () => {
      try {
        do {
          rerun.delete(consumer.name);
          while (await runBatch(consumer)) {
            // keep going while full batches come back
          }
        } while (rerun.has(consumer.name));
      } catch {
        // Left for the next wake-up: the cursor did not move, so nothing is lost or doubled.
      } finally {
        running.delete(consumer.name);
      }
    })();
    running.set(consumer.name, work);
    return work;
  }

  return {
    /**
     * Registers a consumer of the events of `applicableEvents`, which its handler receives narrowed
     * to those types. A new consumer starts at the current end of the outbox: it handles what
     * happens from now on, not the whole history. `gatherMs`: how long wake-ups are gathered before
     * it runs (COALESCE_MS by default); a consumer whose figures may lag (statistics) gathers longer,
     * so a burst of creates costs it one transaction a second rather than forty.
     */
    async register<T extends EventType>(
      name: string,
      handler: ConsumerHandler<T>,
      applicableEvents: readonly T[],
      options: { gatherMs?: number } = {},
    ): Promise<void> {
      const start = await latestEventId(deps.db);
      await deps.db
        .insertInto('outbox_consumers')
        .values({ name, last_id: start, updated_at: deps.clock.now() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      // The handler sees only the events of `applicableEvents`: runBatch filters by `types` first.
      const consumer: Consumer = { name, handler: handler as ConsumerHandler, types: new Set<EventType>(applicableEvents), seen: null };
      consumers.push(consumer);
      // Wake-ups from the relay are gathered for COALESCE_MS: under a burst of writes the relay drains
      // after every group commit, and a consumer transaction per drain (claim, read, cursor write,
      // commit) was a visible share of the message create's CPU (10 ms against 25: 5-10% more CPU per
      // create in alternating rounds). Durable consumers are not on the real-time path (webhooks send
      // 20 ms after scheduling anyway); drain() still runs at once. The batch holds what 25 ms of the
      // busiest create load hands over (~300 events), so the run takes them as handed, with no read.
      let pending: NodeJS.Timeout | null = null;
      deps.relay.onEvents((events, afterId) => {
        keepHanded(consumer, events, afterId, batchSize);
        if (pending) return;
        pending = setTimeout(() => {
          pending = null;
          void run(consumer);
        }, options.gatherMs ?? COALESCE_MS);
        pending.unref();
      });
      // Catch up on anything left from before a restart.
      void run(consumer);
    },
    /** Runs every consumer until it is caught up (tests, shutdown). */
    async drain(): Promise<void> {
      for (const consumer of consumers) {
        await run(consumer);
        while (running.has(consumer.name)) await running.get(consumer.name);
      }
    },
  };
}

export type ConsumerRunner = ReturnType<typeof createConsumerRunner>;

/** Settings rows of outbox pruning: when a run last began (the row runs claim), and the greatest id removed. */
const PRUNED_AT_KEY = 'outbox_pruned_at';
const PRUNED_THROUGH_KEY = 'outbox_pruned_through';

export interface PruneOptions {
  /** Events older than this may go (PARLEY_OUTBOX_RETENTION_HOURS). */
  retentionMs: number;
  /** How often an instance looks; a run happens at most once per interval in the whole deployment. */
  intervalMs: number;
  /** Events removed per transaction. */
  batchSize: number;
  /** The pause between two batches, so other writers get the database in between. */
  pauseMs: number;
}

export const DEFAULT_PRUNE_OPTIONS: Omit<PruneOptions, 'retentionMs'> = { intervalMs: 10 * 60_000, batchSize: 500, pauseMs: 20 };

/** A consumer whose cursor keeps events older than the retention in the outbox. */
export interface HeldBack {
  consumer: string;
  lastId: number;
  /** When its cursor last moved. */
  updatedAt: number;
}

interface BatchOutcome {
  deleted: number;
  more: boolean;
  heldBack: HeldBack | null;
}

/** A settings row as a number, locked for this transaction (skipping it on PostgreSQL if another holds it); null when held or missing. */
async function claimSetting(trx: Executor, dialect: Dialect, key: string): Promise<number | null> {
  const locking = dialect === 'postgres' ? sql` for update skip locked` : sql``;
  const result = await sql<{ value: string }>`select value from settings where key = ${key}${locking}`.execute(trx);
  const row = result.rows[0];
  return row ? Number(row.value) : null;
}

/** The greatest event id pruning removed (0 before any): a stream resuming from before it missed events. */
export async function prunedThrough(db: Executor): Promise<number> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', PRUNED_THROUGH_KEY).executeTakeFirst();
  const value = Number(row?.value ?? 0);
  return Number.isSafeInteger(value) ? value : 0;
}

/** The consumer with the lowest cursor, or null when there is none. */
async function slowestConsumer(trx: Executor): Promise<{ name: string; last_id: number; updated_at: number } | undefined> {
  const row = await trx.selectFrom('outbox_consumers').select(['name', 'last_id', 'updated_at']).orderBy('last_id').orderBy('name').limit(1).executeTakeFirst();
  return row ? { name: row.name, last_id: Number(row.last_id), updated_at: Number(row.updated_at) } : undefined;
}

/**
 * One batch of pruning, in the caller's transaction: the oldest events, up to the first one younger
 * than the retention, never past the slowest consumer's cursor (a tray or webhook consumer that is
 * behind still reads them) and never the newest event (the position that fresh streams and newly
 * registered consumers start from). Outbox ids follow commit order (outbox.ts), so no event below the
 * newest is still to commit.
 */
async function pruneBatch(trx: Executor, dialect: Dialect, options: PruneOptions, now: number, due: (lastRun: number) => boolean): Promise<BatchOutcome> {
  const idle: BatchOutcome = { deleted: 0, more: false, heldBack: null };
  const lastRun = await claimSetting(trx, dialect, PRUNED_AT_KEY);
  if (lastRun === null || !due(lastRun)) return idle;
  const cutoff = now - options.retentionMs;
  const slowest = await slowestConsumer(trx);
  const newest = await latestEventId(trx);
  const bound = Math.min(newest - 1, slowest?.last_id ?? Number.POSITIVE_INFINITY);
  const rows = await trx.selectFrom('outbox').select(['id', 'created_at']).where('id', '<=', bound).orderBy('id').limit(options.batchSize).execute();
  let last = 0;
  for (const row of rows) {
    if (Number(row.created_at) >= cutoff) break;
    last = Number(row.id);
  }
  const deleted = last === 0 ? 0 : Number((await trx.deleteFrom('outbox').where('id', '<=', last).executeTakeFirst()).numDeletedRows);
  if (last > 0) {
    const through = Math.max(last, await prunedThrough(trx));
    await writeSetting(trx, PRUNED_THROUGH_KEY, String(through));
  }
  await writeSetting(trx, PRUNED_AT_KEY, String(now));
  const more = deleted > 0 && rows.length === options.batchSize && last === Number(rows.at(-1)?.id);
  let heldBack: HeldBack | null = null;
  if (!more && slowest && slowest.last_id < newest - 1) {
    // Stopped at a consumer's cursor rather than at the retention: say so when what it holds is old.
    const next = await trx.selectFrom('outbox').select('created_at').where('id', '>', slowest.last_id).orderBy('id').limit(1).executeTakeFirst();
    if (next && Number(next.created_at) < cutoff) heldBack = { consumer: slowest.name, lastId: slowest.last_id, updatedAt: slowest.updated_at };
  }
  return { deleted, more, heldBack };
}

/**
 * Outbox retention: events are kept for the resume window (`retentionMs`) and then removed, oldest
 * first, in small batches, each its own transaction. Every instance looks once per interval; a run
 * claims the `outbox_pruned_at` settings row the way durable consumers claim their cursor rows (FOR
 * UPDATE SKIP LOCKED on PostgreSQL) and goes ahead only when no run began within the interval, so the
 * deployment prunes once per interval whatever its number of instances. The greatest id removed is
 * kept in `outbox_pruned_through`: a stream resuming from before it is told to reload.
 */
export function createOutboxPruner(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  options: Pick<PruneOptions, 'retentionMs'> & Partial<PruneOptions>;
  /** Told when a consumer's cursor keeps events older than the retention. */
  onHeldBack?: (heldBack: HeldBack) => void;
  onError?: (error: unknown) => void;
}) {
  const options: PruneOptions = { ...DEFAULT_PRUNE_OPTIONS, ...deps.options };
  const looks = periodicLooks(() => tick(), options.intervalMs);
  let running: Promise<number> | null = null;
  let stopped = false;

  async function ensureRows(): Promise<void> {
    for (const key of [PRUNED_AT_KEY, PRUNED_THROUGH_KEY]) await ensureSetting(deps.db, key, '0');
  }

  /** Batches until the outbox holds nothing more to remove, when no run began within the interval. */
  async function run(): Promise<number> {
    await ensureRows();
    const now = deps.clock.now();
    // Instances' clocks differ a little; a clock moved back by more than an interval (the test clock)
    // must not stop pruning until it catches up again.
    const due = (lastRun: number) => now - lastRun >= options.intervalMs || lastRun - now > options.intervalMs;
    let total = 0;
    for (let first = true; !stopped; first = false) {
      const outcome = await runTransaction(deps.db, (trx) => pruneBatch(trx, deps.dialect, options, now, first ? due : () => true));
      total += outcome.deleted;
      if (outcome.heldBack) deps.onHeldBack?.(outcome.heldBack);
      if (!outcome.more) break;
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
    return total;
  }

  const tick = () => {
    if (running) return;
    running = run()
      .catch((error: unknown) => {
        deps.onError?.(error);
        return 0;
      })
      .finally(() => {
        running = null;
      });
  };

  return {
    /** Looks every interval, the first time soon after start. */
    start(): void {
      if (!stopped) looks.start();
    },
    async stop(): Promise<void> {
      stopped = true;
      looks.stop();
      if (running) await running;
    },
  };
}

export type OutboxPruner = ReturnType<typeof createOutboxPruner>;
