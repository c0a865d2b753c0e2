import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * The transactional outbox: domain events written in the same transaction as the change they
 * describe. The id orders events (in commit order, see events/outbox.ts) and is the resume point of
 * real-time streams. outbox_consumers holds each durable consumer's position.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const table = db.schema.createTable('outbox');
  await (dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'bigserial', (col) => col.primaryKey())
    : table.addColumn('id', 'integer', (col) => col.primaryKey().autoIncrement())
  )
    .addColumn('type', 'varchar(64)', (col) => col.notNull())
    .addColumn('channel_id', 'varchar(64)')
    .addColumn('user_id', 'varchar(64)')
    .addColumn('recipient_id', 'varchar(64)')
    .addColumn('payload', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('outbox_channel').on('outbox').columns(['channel_id', 'id']).execute();
  await db.schema.createIndex('outbox_recipient').on('outbox').columns(['recipient_id', 'id']).execute();

  await db.schema
    .createTable('outbox_consumers')
    .addColumn('name', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('last_id', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
}
