import { Redis } from 'ioredis';
import { isCommandTimeout, lostConnection, REDIS_CLIENT_OPTIONS, type RedisTarget } from '../storage/redis-target.js';
import { AppError } from './errors.js';

/**
 * A fixed-window rate limiter: at most `limit` hits per key in a window of `windowMs` that starts at
 * the key's first hit. In memory for one instance; in Redis (one atomic script) when REDIS_URL is
 * set, so every instance counts against the same budget. Used by the tray history (5/s per user) and
 * meant for the bot API too.
 */
export interface RateDecision {
  allowed: boolean;
  /** Hits counted in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends. */
  resetInMs: number;
}

export interface RateLimiter {
  hit(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}

export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { endsAt: number; count: number }>();
  let sweptAt = now();
  return {
    async hit(key, limit, windowMs) {
      const at = now();
      // Drop ended windows now and then, so keys of idle users do not pile up.
      if (at - sweptAt > 60_000 || windows.size > 100_000) {
        for (const [name, window] of windows) if (window.endsAt <= at) windows.delete(name);
        sweptAt = at;
      }
      let window = windows.get(key);
      if (!window || window.endsAt <= at) {
        window = { endsAt: at + windowMs, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return { allowed: window.count <= limit, count: window.count, resetInMs: Math.max(0, window.endsAt - at) };
    },
    async close() {
      windows.clear();
    },
  };
}

/** INCR, and on the window's first hit PEXPIRE: one round trip, atomic in Redis. */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

/**
 * Redis-backed. If Redis cannot be reached, requests are let through on the local memory limiter
 * (fail open per instance) rather than refused: the limit protects the server, not a secret. A lost
 * connection falls back at once, a silent one (no answer within a second) is dropped, so no request
 * waits on Redis longer than that, and only once.
 */
export function createRedisRateLimiter(url: string, options: { prefix: string; now?: () => number }): RateLimiter {
  const redis = new Redis(url, { ...REDIS_CLIENT_OPTIONS, lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true, commandTimeout: 1_000 });
  redis.on('error', () => undefined);
  const lost = lostConnection(redis);
  const fallback = createMemoryRateLimiter(options.now);
  const { prefix } = options;
  return {
    async hit(key, limit, windowMs) {
      if (lost()) return fallback.hit(key, limit, windowMs);
      try {
        const reply = (await redis.eval(HIT_SCRIPT, 1, prefix + key, String(windowMs))) as [number, number];
        const count = Number(reply[0]);
        return { allowed: count <= limit, count, resetInMs: Math.max(0, Number(reply[1])) };
      } catch (error) {
        // A connection that stopped answering is dropped: until it is back, hits skip Redis at once.
        if (isCommandTimeout(error)) redis.disconnect(true);
        return fallback.hit(key, limit, windowMs);
      }
    },
    async close() {
      redis.disconnect();
      await fallback.close();
    },
  };
}

export function createRateLimiter(options: { redis: RedisTarget | null; now?: () => number }): RateLimiter {
  if (options.redis === null) return createMemoryRateLimiter(options.now);
  return createRedisRateLimiter(options.redis.url, { prefix: `${options.redis.namespace}rate:`, ...(options.now ? { now: options.now } : {}) });
}

/** Counts a hit and throws 429 / 400311 with Retry-After (whole seconds, at least 1) when over. */
export async function enforceRateLimit(limiter: RateLimiter, key: string, limit: number, windowMs: number): Promise<void> {
  const decision = await limiter.hit(key, limit, windowMs);
  if (decision.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(decision.resetInMs / 1000));
  throw new AppError('rateLimited', `Rate limit exceeded: at most ${limit} requests per ${windowMs / 1000} s; retry after ${retryAfter} s.`, {
    headers: { 'retry-after': String(retryAfter) },
  });
}
