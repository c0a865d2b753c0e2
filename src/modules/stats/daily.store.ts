import type { Executor } from '../../storage/database.js';

/** The counters of daily_stats (one row per UTC day and metric). */
export type DailyMetric = 'messages' | 'active_users' | 'sign_ins' | 'message_flags' | 'user_flags';

export interface DailyCountRow {
  utcDay: number;
  metric: string;
  count: number;
}

/** Ids per statement: far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += CHUNK) out.push(items.slice(start, start + CHUNK));
  return out;
}

/**
 * Daily statistics: counters per UTC day and metric, and the senders of the last days that keep the
 * count of active users distinct. Every write is an upsert or an insert that ignores what exists, so
 * concurrent writers of one day meet on its row's lock, never on a lost update.
 */
export function createDailyStatsStore(db: Executor) {
  return {
    /** Adds `by` to the day's counter of `metric`, making the row at the first count. */
    async bump(utcDay: number, metric: DailyMetric, by: number): Promise<void> {
      await db
        .insertInto('daily_stats')
        .values({ utc_day: utcDay, metric, count: by })
        .onConflict((oc) => oc.columns(['utc_day', 'metric']).doUpdateSet((eb) => ({ count: eb(eb.ref('daily_stats.count'), '+', eb.ref('excluded.count')) })))
        .execute();
    },

    /** Records the day's senders; answers how many were not recorded for that day yet. */
    async addSenders(utcDay: number, userIds: readonly string[]): Promise<number> {
      let added = 0;
      for (const chunk of chunks(userIds)) {
        const result = await db
          .insertInto('daily_senders')
          .values(chunk.map((userId) => ({ utc_day: utcDay, user_id: userId })))
          .onConflict((oc) => oc.columns(['utc_day', 'user_id']).doNothing())
          .executeTakeFirst();
        added += Number(result.numInsertedOrUpdatedRows ?? 0);
      }
      return added;
    },

    /** Forgets the senders of the days before `utcDay`: their counts are final. */
    async pruneSenders(beforeDay: number): Promise<void> {
      await db.deleteFrom('daily_senders').where('utc_day', '<', beforeDay).execute();
    },

    /** Forgets one person's days (an erasure): the counts they made stay. */
    async forgetSender(userId: string): Promise<void> {
      await db.deleteFrom('daily_senders').where('user_id', '=', userId).execute();
    },

    /** Those of `userIds` who are people (users and admins, not bots) and still exist. */
    async peopleAmong(userIds: readonly string[]): Promise<Set<string>> {
      const people = new Set<string>();
      for (const chunk of chunks(userIds)) {
        const rows = await db.selectFrom('users').select('id').where('id', 'in', chunk).where('kind', '!=', 'bot').execute();
        for (const row of rows) people.add(row.id);
      }
      return people;
    },

    /** Every counter of the days from `fromDay` to `toDay`, both included: at most a few rows per day, read from the primary key. */
    async counts(fromDay: number, toDay: number): Promise<DailyCountRow[]> {
      const rows = await db
        .selectFrom('daily_stats')
        .select(['utc_day', 'metric', 'count'])
        .where('utc_day', '>=', fromDay)
        .where('utc_day', '<=', toDay)
        .execute();
      return rows.map((row) => ({ utcDay: Number(row.utc_day), metric: row.metric, count: Number(row.count) }));
    },
  };
}
