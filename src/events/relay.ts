import { randomBytes } from 'node:crypto';
import type { Executor } from '../storage/database.js';
import type { EventBus } from './bus.js';
import { latestEventId, type OutboxEvent, readEventsAfter } from './outbox.js';

export const OUTBOX_TOPIC = 'parley:outbox';

/** `afterId`: the relay's position before this batch, so `events` are all the events in (afterId, last id]. */
export type OutboxListener = (events: OutboxEvent[], afterId: number) => void | Promise<void>;

/**
 * Reads newly committed outbox events and hands them to in-process listeners (the real-time
 * gateway, durable consumers). It wakes on a poke (a local write, or another instance's, through the
 * bus) and on a periodic poll, which is the safety net if a poke is lost.
 */
export function createOutboxRelay(deps: { db: Executor; bus: EventBus; pollIntervalMs?: number; batchSize?: number }) {
  const listeners = new Set<OutboxListener>();
  const batchSize = deps.batchSize ?? 500;
  let lastId = 0;
  let draining: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let pokeScheduled = false;
  // Signs this relay's own wake-ups, so it does not drain a second time when the bus echoes them back.
  const self = randomBytes(8).toString('hex');

  async function deliver(events: OutboxEvent[]): Promise<void> {
    const afterId = lastId;
    lastId = events[events.length - 1]?.id ?? lastId;
    for (const listener of listeners) {
      try {
        await listener(events, afterId);
      } catch {
        // A failing listener must not stop the others; durable consumers retry from their own cursor.
      }
    }
  }

  async function drainOnce(): Promise<void> {
    for (;;) {
      const events = await readEventsAfter(deps.db, lastId, batchSize);
      if (events.length === 0) return;
      await deliver(events);
      if (events.length < batchSize) return;
    }
  }

  /**
   * Coalesces wake-ups: at most one drain runs, and one more follows if poked meanwhile. `handed`:
   * committed events already in memory (see handOver), delivered without reading them back.
   */
  function drain(handed: OutboxEvent[] | null = null): Promise<void> {
    if (stopped) return Promise.resolve();
    if (draining) {
      again = true;
      return draining;
    }
    draining = (async () => {
      // Handed events need no read after them unless a wake-up comes meanwhile (it sets `again`).
      if (handed) await deliver(handed);
      else again = true;
      while (again && !stopped) {
        again = false;
        try {
          await drainOnce();
        } catch {
          // Database trouble: the next poke or poll tries again.
        }
      }
      draining = null;
    })();
    return draining;
  }

  return {
    /** Starts after the events that exist now: history is served by resume queries, not replayed. */
    async start(): Promise<void> {
      lastId = await latestEventId(deps.db);
      await deps.bus.subscribe(OUTBOX_TOPIC, (message) => {
        // Its own poke already drained here; other instances (and older ones, which send '') wake it.
        if (message !== self) void drain();
      });
      timer = setInterval(() => void drain(), deps.pollIntervalMs ?? 250);
      timer.unref();
    },
    onEvents(listener: OutboxListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * After a local commit: drain here, and tell the other instances. Pokes are coalesced to one per
     * event-loop turn: a group commit answers dozens of requests at once, and each response pokes;
     * one drain and one bus message then cover them all. setImmediate runs at the end of the current
     * turn, so delivery waits for no timer.
     */
    poke(): void {
      if (pokeScheduled || stopped) return;
      pokeScheduled = true;
      setImmediate(() => {
        pokeScheduled = false;
        if (stopped) return;
        void drain();
        deps.bus.publish(OUTBOX_TOPIC, self).catch(() => undefined);
      });
    },
    /**
     * After a local commit whose events are at hand (the SQLite message writer): when they follow
     * right after this relay's position, they are delivered as they are instead of being read back;
     * otherwise (another write came between, a drain is running) this is a poke. Outbox ids follow
     * commit order (outbox.ts), so events that start at the position are exactly what a read would
     * answer, up to their end. No read follows them unless a wake-up arrives meanwhile: any other
     * write wakes the relay itself (or is found by the poll).
     */
    handOver(events: OutboxEvent[]): void {
      const first = events[0];
      if (stopped || first === undefined) return;
      if (draining || first.id !== lastId + 1) {
        this.poke();
        return;
      }
      void drain(events);
      deps.bus.publish(OUTBOX_TOPIC, self).catch(() => undefined);
    },
    /** Resolves once everything committed before the call has been handed to listeners. */
    async flush(): Promise<void> {
      await drain();
      if (draining) await draining;
    },
    get position(): number {
      return lastId;
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      if (draining) await draining;
    },
  };
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>;
