import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { Executor } from './database.js';
import { loadOrCreateSetting } from './settings.js';

/** Where this deployment keeps its cross-instance state in Redis: the server, and the key prefix it owns there. */
export interface RedisTarget {
  url: string;
  /** `parley:<deployment id>:`, put before every key and pub/sub channel name. */
  namespace: string;
}

/**
 * Names the deployment by its database: instances on one database share a random id (created by the
 * first start), so they meet on the same channels and counters, while another deployment pointed at the
 * same Redis (staging beside production, two tenants) gets its own and never sees their wake-ups, rule
 * announcements or rate-limit counts (user ids like "alice" repeat across deployments).
 */
export async function redisTargetOf(db: Executor, url: string | null): Promise<RedisTarget | null> {
  if (url === null) return null;
  const deploymentId = await loadOrCreateSetting(db, 'deployment_id', () => randomBytes(8).toString('hex'));
  return { url, namespace: `parley:${deploymentId}:` };
}

/** The longest a start-up waits for Redis to answer, and a running server for one command. */
export const REDIS_CHECK_TIMEOUT_MS = 5_000;

/**
 * Options every long-lived client shares: a connection attempt gives up after 5 s (ioredis waits 10 s),
 * and a lost connection is retried at most a second apart, so a Redis that comes back is used again
 * within about a second.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  connectTimeout: REDIS_CHECK_TIMEOUT_MS,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1_000),
};

/**
 * Whether a client that was connected has lost its connection. Commands sent then would wait for a
 * reconnect (or pile up in the offline queue), so callers skip Redis instead: a wake-up is dropped, a
 * rate limit counts in memory. Before the first connection, commands queue as usual: the start-up
 * checked that Redis answers, and the first publish of a fresh client must not be lost.
 */
export function lostConnection(client: Redis): () => boolean {
  let connected = false;
  client.once('ready', () => {
    connected = true;
  });
  return () => connected && client.status !== 'ready';
}

/**
 * ioredis's `commandTimeout` rejection: the connection looks up, but Redis does not answer (a paused
 * server, a network that drops packets). Callers drop such a connection (`disconnect(true)`), so that
 * the next commands see it down and skip Redis at once, and the reconnection finds Redis when it answers.
 */
export const isCommandTimeout = (error: unknown): boolean => error instanceof Error && error.message === 'Command timed out';

/** Where REDIS_URL points, as host:port; never its password. */
export function redisAddressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '6379'}`;
  } catch {
    return 'REDIS_URL';
  }
}

/** A start-up whose Redis cannot be used; the message is one line that says what to check. */
export class RedisUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'RedisUnavailableError';
  }
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
};

/** The one-line message for a Redis that did not answer a start-up's PING. */
export function describeRedisFailure(error: unknown, url: string): RedisUnavailableError {
  const address = redisAddressOf(url);
  const code = (error as { code?: unknown } | null)?.code;
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const say = (message: string) => new RedisUnavailableError(message, { cause: error });
  if (typeof code === 'string' && UNREACHABLE[code]) return say(`cannot reach Redis at ${address} (${UNREACHABLE[code]}): is it running? check REDIS_URL`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return say(`cannot reach Redis at ${address} (the name does not resolve): check the host in REDIS_URL`);
  if (error instanceof RedisTimeout)
    return say(
      `cannot reach Redis at ${address} (no answer within ${REDIS_CHECK_TIMEOUT_MS / 1000} s): is it running, and can this machine reach it? check REDIS_URL and firewalls`,
    );
  if (/^(WRONGPASS|NOAUTH)/.test(reason))
    return say(`Redis at ${address} refused to authenticate (${reason.split(' ')[0]}): fix the user or password in REDIS_URL`);
  if (/protocol error/i.test(reason)) return say(`the server at ${address} does not speak the Redis protocol: check the port in REDIS_URL`);
  return say(`cannot use Redis at ${address} (${reason}): check REDIS_URL`);
}

class RedisTimeout extends Error {}

/** Resolves with `work`, or rejects with a RedisTimeout after `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisTimeout('timed out')), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connects once and sends PING, within REDIS_CHECK_TIMEOUT_MS: a start-up with REDIS_URL fails here,
 * in one line, rather than waiting for ever on a subscription (ioredis retries without end).
 */
export async function checkRedis(url: string, timeoutMs = REDIS_CHECK_TIMEOUT_MS): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The connection's own error (refused, a name that does not resolve) says more than the "Connection
  // is closed." that connect() rejects with.
  let cause: unknown = null;
  client.on('error', (error: unknown) => {
    cause ??= error;
  });
  try {
    await within(
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      timeoutMs,
    );
  } catch (error) {
    throw describeRedisFailure(error instanceof RedisTimeout ? error : (cause ?? error), url);
  } finally {
    client.disconnect();
  }
}

/** The few log calls the watch makes (pino's signature). */
export interface RedisWatchLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export type DependencyState = 'ok' | 'unavailable';

export interface RedisHealth {
  /** 'unavailable' from a dropped connection or an unanswered PING until Redis answers again. */
  readonly state: DependencyState;
  close(): Promise<void>;
}

/**
 * Watches Redis on a connection of its own: a dropped connection is noticed at once, a silent one (a
 * network that drops packets) by a PING each `intervalMs` that gets no answer within `timeoutMs`. The
 * loss is logged once, as a warning, and the return once, as info; /readyz reads the state. Checks
 * Redis first (checkRedis), so a start-up with an unusable REDIS_URL fails.
 */
export async function watchRedis(url: string, log: RedisWatchLog, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<RedisHealth> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  await checkRedis(url);
  const address = redisAddressOf(url);
  const client = new Redis(url, { ...REDIS_CLIENT_OPTIONS, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, commandTimeout: timeoutMs });
  let state: DependencyState = 'ok';
  let lostAt = 0;
  let closed = false;
  let pinging = false;
  let lastError = '';

  const lost = (reason: string): void => {
    if (closed || state === 'unavailable') return;
    state = 'unavailable';
    lostAt = Date.now();
    log.warn(
      { redis: address, reason },
      `Redis at ${address} is unavailable (${reason}): streams on this instance still get every event through the outbox poll, other instances see its writes within the poll interval, and rate limits count per instance until it is back`,
    );
  };
  const back = (): void => {
    if (closed || state === 'ok') return;
    state = 'ok';
    log.info({ redis: address, unavailableMs: Date.now() - lostAt }, `Redis at ${address} is available again`);
  };

  client.on('error', (error: Error) => {
    lastError = error.message;
  });
  client.on('close', () => lost(lastError === '' ? 'connection closed' : lastError));
  client.on('ready', () => {
    lastError = '';
    back();
  });
  const ping = async (): Promise<void> => {
    if (pinging || closed || client.status !== 'ready') return;
    pinging = true;
    try {
      await client.ping();
      back();
    } catch (error) {
      lost(error instanceof Error ? error.message : 'no answer');
      // A connection that stopped answering is dropped, so the next one is tried.
      if (!closed) client.disconnect(true);
    } finally {
      pinging = false;
    }
  };
  await client.connect().catch(() => undefined);
  const timer = setInterval(() => void ping(), options.intervalMs ?? 1_000);
  timer.unref();
  return {
    get state() {
      return state;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      client.disconnect();
    },
  };
}
