import type { Clock } from '../clock.js';
import type { Dialect, Executor } from '../storage/database.js';
import type { RedisTarget } from '../storage/redis-target.js';
import { createMemoryBus, createRedisBus, type EventBus } from './bus.js';
import { createConsumerRunner, type ConsumerRunner } from './consumers.js';
import { createOutboxRelay, type OutboxRelay } from './relay.js';

export interface EventSystem {
  bus: EventBus;
  relay: OutboxRelay;
  consumers: ConsumerRunner;
  stop(): Promise<void>;
}

/** The bus (Redis when configured, else in-process), the outbox relay and the durable consumers. */
export async function startEventSystem(deps: {
  /** Redis and this deployment's namespace in it; null: one instance, an in-process bus. */
  redis: RedisTarget | null;
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  /** The relay's safety-net poll; it is normally woken by the commits themselves (storage/transactions.ts). */
  pollIntervalMs?: number;
}): Promise<EventSystem> {
  const bus = deps.redis ? createRedisBus(deps.redis) : createMemoryBus();
  const relay = createOutboxRelay({ db: deps.db, bus, ...(deps.pollIntervalMs ? { pollIntervalMs: deps.pollIntervalMs } : {}) });
  await relay.start();
  const consumers = createConsumerRunner({ db: deps.db, dialect: deps.dialect, clock: deps.clock, relay });
  return {
    bus,
    relay,
    consumers,
    async stop() {
      await relay.stop();
      await bus.close();
    },
  };
}
