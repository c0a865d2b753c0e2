import type { Kysely } from 'kysely';

/**
 * Daily statistics (modules/stats), kept as they happen so that reading a month costs a few rows.
 *
 * - `daily_stats`: one counter per UTC day (`utc_day`, days since 1970-01-01) and metric: `messages`
 *   and `active_users`, rolled up from the outbox's `message.created` events by the `daily-stats`
 *   consumer; `sign_ins`, `message_flags` and `user_flags`, bumped in the transaction of the write.
 * - `daily_senders`: who sent a message on a day, so each person counts once in `active_users`; only
 *   the last days are kept (stats/daily-stats.ts, SENDER_DAYS_KEPT).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('daily_stats')
    .addColumn('utc_day', 'integer', (col) => col.notNull())
    .addColumn('metric', 'varchar(32)', (col) => col.notNull())
    .addColumn('count', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('daily_stats_pk', ['utc_day', 'metric'])
    .execute();
  await db.schema
    .createTable('daily_senders')
    .addColumn('utc_day', 'integer', (col) => col.notNull())
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addPrimaryKeyConstraint('daily_senders_pk', ['utc_day', 'user_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('daily_senders').execute();
  await db.schema.dropTable('daily_stats').execute();
}
