import type { Kysely } from 'kysely';

/** Bot webhook deliveries: scheduled exactly once per (bot, event) by the outbox consumer, sent at least once. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('bot_user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('event_id', 'bigint', (col) => col.notNull())
    .addColumn('body', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (col) => col.notNull())
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'bigint')
    .addColumn('gave_up_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['delivered_at', 'gave_up_at', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_deliveries_unique').on('webhook_deliveries').columns(['bot_user_id', 'event_id']).unique().execute();
}
