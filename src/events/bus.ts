import { Redis } from 'ioredis';
import type { RedisTarget } from '../storage/redis-target.js';

/**
 * Cross-instance signalling. Messages are wake-ups and small notices, never the only copy of data:
 * the database (outbox) stays the source of truth, so a lost bus message costs latency, not events.
 */
export interface EventBus {
  publish(topic: string, message: string): Promise<void>;
  subscribe(topic: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

/** One process: handlers are called in the same tick's microtask queue. */
export function createMemoryBus(): EventBus {
  const handlers = new Map<string, Set<(message: string) => void>>();
  return {
    async publish(topic, message) {
      for (const handler of handlers.get(topic) ?? []) queueMicrotask(() => handler(message));
    },
    async subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      set.add(handler);
      handlers.set(topic, set);
    },
    async close() {
      handlers.clear();
    },
  };
}

/**
 * Redis pub/sub: one connection publishes, one subscribes (a subscribed connection can do nothing else).
 * Channel names are the topic under the deployment's namespace (storage/redis-target.ts), so another
 * deployment on the same Redis neither hears nor wakes this one.
 */
export function createRedisBus(target: RedisTarget): EventBus {
  const { url, namespace } = target;
  const publisher = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  // No ready check on the subscriber: ioredis's check (an INFO command) can still be in flight when the
  // first SUBSCRIBE goes out, and then the subscription is silently lost or INFO is refused in
  // subscriber mode (an uncaught error). Commands sent before the connection is up are queued anyway.
  const subscriber = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: null, enableReadyCheck: false });
  const handlers = new Map<string, Set<(message: string) => void>>();
  // Connection trouble is retried by ioredis; meanwhile the relay's periodic poll keeps events flowing.
  publisher.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel.slice(namespace.length)) ?? []) handler(message);
  });
  return {
    async publish(topic, message) {
      await publisher.publish(namespace + topic, message);
    },
    async subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      const first = set.size === 0;
      set.add(handler);
      handlers.set(topic, set);
      if (first) await subscriber.subscribe(namespace + topic);
    },
    async close() {
      handlers.clear();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}
