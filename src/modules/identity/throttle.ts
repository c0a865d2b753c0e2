import type { Clock } from '../../clock.js';
import type { Executor } from '../../storage/database.js';
import { createSessionsStore } from './sessions.store.js';

/** 10 failed sign-ins within 10 minutes, per account or per address, and the next attempt is a 429. */
export const THROTTLE_MAX_FAILURES = 10;
export const THROTTLE_WINDOW_MS = 10 * 60 * 1000;

export interface ThrottleKeys {
  account: string;
  address: string;
}

/**
 * The login throttle. Failures are rows in the database, so every instance behind a load balancer
 * counts the same attempts. Unknown usernames count like known ones: the answer never tells which.
 */
export function createLoginThrottle(deps: { db: Executor; clock: Clock }) {
  const store = createSessionsStore(deps.db);
  return {
    keysFor(username: string, address: string): ThrottleKeys {
      return { account: `account:${username.trim().toLowerCase().slice(0, 150)}`, address: `address:${address}` };
    },

    /** Seconds until another attempt is allowed, or null when none of the keys is throttled. */
    async retryAfter(keys: ThrottleKeys): Promise<number | null> {
      const now = deps.clock.now();
      const counts = await store.countFailures([keys.account, keys.address], now - THROTTLE_WINDOW_MS);
      const blocked = counts.filter((count) => count.failures >= THROTTLE_MAX_FAILURES);
      if (blocked.length === 0) return null;
      const freeAt = Math.max(...blocked.map((count) => count.oldest + THROTTLE_WINDOW_MS));
      return Math.max(1, Math.ceil((freeAt - now) / 1000));
    },

    async recordFailure(keys: ThrottleKeys): Promise<void> {
      await store.recordFailure([keys.account, keys.address], deps.clock.now());
    },

    /** A successful sign-in clears the account's count; the address keeps its own. */
    async recordSuccess(keys: ThrottleKeys): Promise<void> {
      await store.clearFailures(keys.account);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
