import { randomBytes } from 'node:crypto';
import type { Executor } from '../storage/database.js';
import { onEventsCommitted } from '../storage/transactions.js';
import type { EventBus } from './bus.js';
import { latestEventId, type OutboxEvent, readEventsAfter } from './outbox.js';

export const OUTBOX_TOPIC = 'parley:outbox';

/** `afterId`: the relay's position before this batch, so `events` are all the events in (afterId, last id]. */
export type OutboxListener = (events: OutboxEvent[], afterId: number) => void | Promise<void>;

/**
 * Delivery in outbox order: at most one drain runs, and one more follows if woken meanwhile. The
 * position is the last id handed to the listeners.
 */
function createDelivery(db: Executor, listeners: ReadonlySet<OutboxListener>, batchSize: number) {
  let lastId = 0;
  let draining: Promise<void> | null = null;
  let again = false;
  let stopped = false;

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
      const events = await readEventsAfter(db, lastId, batchSize);
      if (events.length === 0) return;
      await deliver(events);
      if (events.length < batchSize) return;
    }
  }

  /** `handed`: committed events already in memory (see handOver), delivered without reading them back. */
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
          // Database trouble: the next wake-up or poll tries again.
        }
      }
      draining = null;
    })();
    return draining;
  }

  return {
    drain,
    /** Whether events that start at `firstId` follow right after the position, with no drain running. */
    follows: (firstId: number): boolean => draining === null && firstId === lastId + 1,
    startAt(id: number): void {
      lastId = id;
    },
    get position(): number {
      return lastId;
    },
    /** Resolves once the running drain (and the one it asked for) ended. */
    async settled(): Promise<void> {
      if (draining) await draining;
    },
    async stop(): Promise<void> {
      stopped = true;
      if (draining) await draining;
    },
  };
}

/**
 * Hands newly committed outbox events to in-process listeners (the real-time gateway, durable
 * consumers). The transaction layer tells it about every local commit that appended events, with the
 * events (storage/transactions.ts); another instance's commits arrive as a wake-up through the bus,
 * and a periodic poll is the safety net if a wake-up is lost.
 */
export function createOutboxRelay(deps: { db: Executor; bus: EventBus; pollIntervalMs?: number; batchSize?: number }) {
  const listeners = new Set<OutboxListener>();
  const delivery = createDelivery(deps.db, listeners, deps.batchSize ?? 500);
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let pokeScheduled = false;
  let announceScheduled = false;
  let stopListening: (() => void) | null = null;
  // Signs this relay's own wake-ups, so it does not drain a second time when the bus echoes them back.
  const self = randomBytes(8).toString('hex');

  /**
   * Wakes the other instances, once per event-loop turn: a burst of commits (a group commit answers
   * dozens of requests) costs one bus message.
   */
  function announce(): void {
    if (announceScheduled || stopped) return;
    announceScheduled = true;
    setImmediate(() => {
      announceScheduled = false;
      if (!stopped) deps.bus.publish(OUTBOX_TOPIC, self).catch(() => undefined);
    });
  }

  /**
   * Committed events at hand: when they follow right after this relay's position, they are delivered
   * as they are instead of being read back; otherwise (another write came between, a drain is
   * running) the relay reads. Outbox ids follow commit order (outbox.ts), so events that start at the
   * position are exactly what a read would answer, up to their end. No read follows them unless a
   * wake-up arrives meanwhile: every local commit is announced too, and others are found by the poll.
   */
  function handOver(events: readonly OutboxEvent[]): void {
    const first = events[0];
    if (stopped || first === undefined) return;
    void delivery.drain(delivery.follows(first.id) ? [...events] : null);
    announce();
  }

  return {
    /** Starts after the events that exist now: history is served by resume queries, not replayed. */
    async start(): Promise<void> {
      delivery.startAt(await latestEventId(deps.db));
      await deps.bus.subscribe(OUTBOX_TOPIC, (message) => {
        // Its own commits were handed over here already; other instances' (and older ones', which send '') wake it.
        if (message !== self) void delivery.drain();
      });
      // Handed over on the next tick, not inside the commit: the writer's answers (a group commit
      // answers a whole batch) go out first, and delivering to a channel with 1,000 sockets open takes
      // ~10 ms that a poster need not wait for. Ticks keep the commits' order.
      stopListening = onEventsCommitted(deps.db, (events) => process.nextTick(handOver, events));
      timer = setInterval(() => void delivery.drain(), deps.pollIntervalMs ?? 250);
      timer.unref();
    },
    onEvents(listener: OutboxListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /**
     * Wakes the relay for commits it was not told about (the transaction layer tells it about every
     * commit that goes through it): drains here, and tells the other instances. Coalesced to one per
     * event-loop turn; setImmediate runs at the end of the current turn, so delivery waits for no timer.
     */
    poke(): void {
      if (pokeScheduled || stopped) return;
      pokeScheduled = true;
      setImmediate(() => {
        pokeScheduled = false;
        if (stopped) return;
        void delivery.drain();
        deps.bus.publish(OUTBOX_TOPIC, self).catch(() => undefined);
      });
    },
    /** Resolves once everything committed before the call has been handed to listeners. */
    async flush(): Promise<void> {
      await delivery.drain();
      await delivery.settled();
    },
    get position(): number {
      return delivery.position;
    },
    async stop(): Promise<void> {
      stopped = true;
      stopListening?.();
      if (timer) clearInterval(timer);
      await delivery.stop();
    },
  };
}

export type OutboxRelay = ReturnType<typeof createOutboxRelay>;
