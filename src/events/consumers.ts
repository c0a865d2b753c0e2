import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { Dialect, Executor } from '../storage/database.js';
import { runTransaction } from '../storage/transactions.js';
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
     * happens from now on, not the whole history.
     */
    async register<T extends EventType>(name: string, handler: ConsumerHandler<T>, applicableEvents: readonly T[]): Promise<void> {
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
        }, COALESCE_MS);
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
