import type { Clock } from '../../clock.js';
import type { OutboxEvent } from '../../events/catalogue.js';
import type { Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { createDailyStatsStore, type DailyMetric } from './daily.store.js';
import { utcDayOf } from './daily-tallies.js';

/**
 * Messages, active users, sign-ins and flags per UTC day, kept as they happen (docs/decisions.md,
 * "Statistics"): a read of the last 90 days costs a few hundred rows of daily_stats, whatever the
 * number of messages.
 *
 * - Messages and active users are rolled up from the outbox by the durable consumer `daily-stats`
 *   (container.ts): each batch of `message.created` events is counted in the transaction that moves
 *   the consumer's cursor, so after a crash or a restart nothing is counted twice or lost, and on
 *   PostgreSQL one instance at a time holds the cursor. The message create itself writes nothing more.
 * - Sign-ins (authorization codes exchanged) and flags raised are rare writes: their counters move in
 *   the write's own transaction (daily-tallies.ts), as the last row it locks.
 *
 * A day counts what was created on it: a message deleted later stays counted, as does a flag a review
 * cleared.
 */

/** At most this many days are answered at once. */
export const MAX_DAYS = 90;

/** Senders are kept this many days back from the newest day rolled up: enough for events that come late. */
export const SENDER_DAYS_KEPT = 7;

/** What one day's messages add up to: how many, and who sent them. */
interface DayTally {
  messages: number;
  senders: Set<string>;
}

function tallyInto(days: Map<number, DayTally>, createdAt: number, userId: string): void {
  const day = utcDayOf(createdAt);
  let tally = days.get(day);
  if (tally === undefined) {
    tally = { messages: 0, senders: new Set() };
    days.set(day, tally);
  }
  tally.messages += 1;
  tally.senders.add(userId);
}

/** Adds the tallies to the counters in the caller's transaction: each person once per day, bots left out. */
async function addTallies(trx: Executor, days: Map<number, DayTally>): Promise<void> {
  if (days.size === 0) return;
  const store = createDailyStatsStore(trx);
  const everyone = new Set<string>();
  for (const tally of days.values()) for (const userId of tally.senders) everyone.add(userId);
  const people = await store.peopleAmong([...everyone]);
  for (const [day, tally] of [...days].sort(([a], [b]) => a - b)) {
    await store.bump(day, 'messages', tally.messages);
    const senders = [...tally.senders].filter((userId) => people.has(userId));
    const added = senders.length === 0 ? 0 : await store.addSenders(day, senders);
    if (added > 0) await store.bump(day, 'active_users', added);
  }
  await store.pruneSenders(Math.max(...days.keys()) - SENDER_DAYS_KEPT);
}

/**
 * The `daily-stats` consumer's handler: counts a batch of `message.created` events on the days their
 * messages were created, in the consumer's transaction `trx`.
 */
export async function rollUpMessages(trx: Executor, events: OutboxEvent<'message.created'>[]): Promise<void> {
  const days = new Map<number, DayTally>();
  for (const event of events) {
    const createdAt = Date.parse(event.data.createdAt);
    tallyInto(days, Number.isNaN(createdAt) ? event.createdAt : createdAt, event.data.userId);
  }
  await addTallies(trx, days);
}

/**
 * Counts messages written without events (`parley seed`): the history they make is counted as the
 * consumer would have counted it, in one transaction.
 */
export async function addMessageHistory(db: Executor, rows: AsyncIterable<{ created_at: number; user_id: string }>): Promise<void> {
  const days = new Map<number, DayTally>();
  for await (const row of rows) tallyInto(days, row.created_at, row.user_id);
  await runTransaction(db, (trx) => addTallies(trx, days));
}

/** One day's figures. */
export interface DailyFigures {
  utcDay: number;
  messages: number;
  activeUsers: number;
  signIns: number;
  messageFlags: number;
  userFlags: number;
}

const FIELD_OF_METRIC = new Map<string, Exclude<keyof DailyFigures, 'utcDay'>>([
  ['messages', 'messages'],
  ['active_users', 'activeUsers'],
  ['sign_ins', 'signIns'],
  ['message_flags', 'messageFlags'],
  ['user_flags', 'userFlags'],
] satisfies Array<[DailyMetric, Exclude<keyof DailyFigures, 'utcDay'>]>);

/** The last `days` UTC days up to today (the clock's), oldest first; a day with nothing is all zeros. */
export async function readDailyFigures(deps: { db: Executor; clock: Clock }, days: number): Promise<DailyFigures[]> {
  const today = utcDayOf(deps.clock.now());
  const first = today - days + 1;
  const figures: DailyFigures[] = [];
  for (let day = first; day <= today; day += 1) figures.push({ utcDay: day, messages: 0, activeUsers: 0, signIns: 0, messageFlags: 0, userFlags: 0 });
  for (const row of await createDailyStatsStore(deps.db).counts(first, today)) {
    const day = figures[row.utcDay - first];
    const key = FIELD_OF_METRIC.get(row.metric);
    if (day !== undefined && key !== undefined) day[key] = row.count;
  }
  return figures;
}
