import { Redis } from 'ioredis';
import {
  isCommandTimeout,
  lostConnection,
  REDIS_CHECK_TIMEOUT_MS,
  REDIS_CLIENT_OPTIONS,
  type RedisTarget,
  RedisUnavailableError,
  redisAddressOf,
} from '../storage/redis-target.js';

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

/** A publish on a connection that stopped answering gives up after this long. */
const COMMAND_TIMEOUT_MS = 2_000;

/** How long a subscription may wait for Redis before the start-up gives up. */
const SUBSCRIBE_TIMEOUT_MS = REDIS_CHECK_TIMEOUT_MS;

/**
 * The subscriber sends nothing on its own, so it would never notice a connection that died silently
 * (a network that dropped it, a Redis restarted behind a proxy) and would stay deaf after Redis came
 * back: it sends PING this often, and reconnects when no answer comes within COMMAND_TIMEOUT_MS.
 */
const SUBSCRIBER_PING_MS = 2_000;

/**
 * Redis pub/sub: one connection publishes, one subscribes (a subscribed connection can do nothing else).
 * Channel names are the topic under the deployment's namespace (storage/redis-target.ts), so another
 * deployment on the same Redis neither hears nor wakes this one.
 *
 * Redis being lost never blocks a caller: a publish while the connection is down is dropped at once
 * (each message is a wake-up or a notice, which the relay's poll, the rules' version check and the
 * streams' heartbeat re-checks make up for), one sent on a connection that stopped answering gives up
 * after COMMAND_TIMEOUT_MS and has the connection made again, and the subscriber reconnects and
 * subscribes again by itself (ioredis resubscribes what it had).
 */
export function createRedisBus(target: RedisTarget): EventBus {
  const { url, namespace } = target;
  const publisher = new Redis(url, { ...REDIS_CLIENT_OPTIONS, maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS });
  const publisherLost = lostConnection(publisher);
  // No ready check on the subscriber: ioredis's check (an INFO command) can still be in flight when the
  // first SUBSCRIBE goes out, and then the subscription is silently lost or INFO is refused in
  // subscriber mode (an uncaught error). Commands sent before the connection is up are queued anyway.
  const subscriber = new Redis(url, { ...REDIS_CLIENT_OPTIONS, maxRetriesPerRequest: null, enableReadyCheck: false });
  const handlers = new Map<string, Set<(message: string) => void>>();
  // Connection trouble is retried by ioredis and reported once by the Redis watch (storage/redis-target.ts).
  publisher.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel.slice(namespace.length)) ?? []) handler(message);
  });
  const heartbeat = setInterval(() => void pingSubscriber(subscriber), SUBSCRIBER_PING_MS);
  heartbeat.unref();
  return {
    async publish(topic, message) {
      if (publisherLost()) return;
      try {
        await publisher.publish(namespace + topic, message);
      } catch (error) {
        if (isCommandTimeout(error)) publisher.disconnect(true);
        throw error;
      }
    },
    async subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      const first = set.size === 0;
      set.add(handler);
      handlers.set(topic, set);
      if (first) await subscribeWithin(subscriber, namespace + topic, url);
    },
    async close() {
      clearInterval(heartbeat);
      handlers.clear();
      subscriber.disconnect();
      publisher.disconnect();
    },
  };
}

/** PING on a subscribed connection (allowed in subscriber mode); no answer in time: reconnect. */
async function pingSubscriber(subscriber: Redis): Promise<void> {
  if (subscriber.status !== 'ready') return;
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    subscriber.ping().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), COMMAND_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (!answered && subscriber.status === 'ready') subscriber.disconnect(true);
}

/** SUBSCRIBE, or the start-up's one-line failure when Redis does not answer it in time. */
async function subscribeWithin(subscriber: Redis, channel: string, url: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RedisUnavailableError(
            `cannot reach Redis at ${redisAddressOf(url)} (no answer to SUBSCRIBE within ${SUBSCRIBE_TIMEOUT_MS / 1000} s): check REDIS_URL`,
          ),
        ),
      SUBSCRIBE_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([subscriber.subscribe(channel), late]);
  } finally {
    clearTimeout(timer);
  }
}
