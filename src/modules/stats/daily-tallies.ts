import type { Executor } from '../../storage/database.js';
import { createDailyStatsStore, type DailyMetric } from './daily.store.js';

/**
 * The counters that move in the transaction of the write they count (daily-stats.ts tells which and
 * why): called by the modules that own those writes, each with one line.
 */

export const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (UTC) of a time in ms. */
export const utcDayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** A day as its ISO date, 2025-03-14. */
export const isoDateOf = (utcDay: number): string => new Date(utcDay * DAY_MS).toISOString().slice(0, 10);

/**
 * Counts a sign-in (an authorization code exchanged for tokens) when `claimed`, in the transaction
 * `trx` that exchanges it; answers `claimed`, so the code's claim passes through.
 */
export async function tallySignIn(trx: Executor, claimed: boolean, at: number): Promise<boolean> {
  if (claimed) await createDailyStatsStore(trx).bump(utcDayOf(at), 'sign_ins', 1);
  return claimed;
}

/** Counts a flag on a message or a user when `raised`, in the transaction `trx` that adds it; answers `raised`. */
export async function tallyFlag(trx: Executor, target: 'message' | 'user', raised: boolean, at: number): Promise<boolean> {
  const metric: DailyMetric = target === 'message' ? 'message_flags' : 'user_flags';
  if (raised) await createDailyStatsStore(trx).bump(utcDayOf(at), metric, 1);
  return raised;
}

/** An erasure forgets on which days the user sent messages; the day's counts stay as they are. */
export async function forgetDailySender(db: Executor, userId: string): Promise<void> {
  await createDailyStatsStore(db).forgetSender(userId);
}
