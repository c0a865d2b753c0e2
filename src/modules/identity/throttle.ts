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

/** The throttle's key of an account: its sign-in name as typed, trimmed, lower-cased and bounded. */
const accountKeyOf = (username: string): string => `account:${username.trim().toLowerCase().slice(0, 150)}`;

/**
 * An erasure forgets the failed sign-ins counted against the user's account, in its transaction
 * `trx`: their key spells the sign-in name, which goes with the rest of the profile.
 */
export async function forgetAccountFailures(trx: Executor, username: string): Promise<void> {
  await createSessionsStore(trx).clearFailures(accountKeyOf(username));
}

/**
 * The login throttle. Failures are rows in the database, so every instance behind a load balancer
 * counts the same attempts. Unknown usernames count like known ones: the answer never tells which.
 *
 * Attempts being checked count too, as if they had failed: a failure is written only once the
 * password check (scrypt, tens of milliseconds) is done, so without this, hundreds of attempts sent at
 * once would all be checked before the first failure was counted. They are counted in this process;
 * with several instances, a burst spread over them gets at most the limit checked on each.
 *
 * An attempt that ends while another one is reading the counts is counted by that reader too: its
 * failure may be committed just after the read began (so the read misses it) and its in-check count
 * dropped just before the read ended (so that misses it too). Counting it twice is the safe error, and
 * only attempts that overlap in time can be.
 */
export function createLoginThrottle(deps: { db: Executor; clock: Clock }) {
  const store = createSessionsStore(deps.db);
  const checking = new Map<string, number>();
  /** Per key, the readers of the counts in progress, each with how many attempts of the key ended meanwhile. */
  const readers = new Map<string, Set<{ ended: number }>>();
  const inCheck = (key: string) => checking.get(key) ?? 0;
  const adjust = (keys: ThrottleKeys, by: number) => {
    for (const key of [keys.account, keys.address]) {
      const count = inCheck(key) + by;
      if (count > 0) checking.set(key, count);
      else checking.delete(key);
      if (by < 0) for (const reader of readers.get(key) ?? []) reader.ended -= by;
    }
  };
  /** Reads the failures of both keys, and the attempts of each that ended while it read. */
  const readCounts = async (keys: ThrottleKeys, since: number) => {
    const watched = [keys.account, keys.address].map((key) => {
      const reader = { ended: 0 };
      const set = readers.get(key) ?? new Set();
      readers.set(key, set.add(reader));
      return { key, reader, set };
    });
    try {
      const counts = await store.countFailures([keys.account, keys.address], since);
      return { counts, endedMeanwhile: new Map(watched.map(({ key, reader }) => [key, reader.ended])) };
    } finally {
      for (const { key, reader, set } of watched) {
        set.delete(reader);
        if (set.size === 0 && readers.get(key) === set) readers.delete(key);
      }
    }
  };
  return {
    keysFor(username: string, address: string): ThrottleKeys {
      return { account: accountKeyOf(username), address: `address:${address}` };
    },

    /**
     * Seconds until another attempt is allowed, or null when none of the keys is throttled: then the
     * attempt is counted as being checked until `finish` is called (exactly once) with its outcome.
     */
    async begin(keys: ThrottleKeys): Promise<number | null> {
      const now = deps.clock.now();
      const { counts, endedMeanwhile } = await readCounts(keys, now - THROTTLE_WINDOW_MS);
      const failures = new Map(counts.map((count) => [count.key, count]));
      const attempts = (key: string) => (failures.get(key)?.failures ?? 0) + inCheck(key) + (endedMeanwhile.get(key) ?? 0);
      const blocked = [keys.account, keys.address].filter((key) => attempts(key) >= THROTTLE_MAX_FAILURES);
      if (blocked.length === 0) {
        adjust(keys, 1);
        return null;
      }
      // Blocked by attempts still being checked only: they will be failures within the window, if any.
      const freeAt = Math.max(...blocked.map((key) => (failures.get(key)?.oldest ?? now) + THROTTLE_WINDOW_MS));
      return Math.max(1, Math.ceil((freeAt - now) / 1000));
    },

    /**
     * The end of an attempt `begin` let through: a failure is recorded; a right password clears the
     * account's count (the address keeps its own); null (the check did not finish) records nothing.
     */
    async finish(keys: ThrottleKeys, outcome: 'passed' | 'failed' | null): Promise<void> {
      try {
        if (outcome === 'passed') await store.clearFailures(keys.account);
        else if (outcome === 'failed') await store.recordFailure([keys.account, keys.address], deps.clock.now());
      } finally {
        adjust(keys, -1);
      }
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
