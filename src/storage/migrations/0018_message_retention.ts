import type { Kysely } from 'kysely';

/**
 * Message retention (modules/messages/retention.ts). `channel_retention` holds, per channel, its own
 * period (`days`, overriding PARLEY_MESSAGE_RETENTION_DAYS; 0 keeps for ever; null: the deployment's
 * applies) and the walk's cursor: every message with `segment <= cursor_segment` is deleted, so a run
 * reads a channel from there along the unique (channel_id, segment) index. `pending` counts changes of
 * the channel's own period a walk has not yet followed.
 *
 * No index on `messages` is added: every message create would write into it (see 0011), and the walk
 * needs only the primary key and (channel_id, segment), which every create writes anyway.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_retention')
    .addColumn('channel_id', 'varchar(64)', (col) => col.primaryKey().references('channels.id').onDelete('cascade'))
    .addColumn('days', 'integer')
    .addColumn('cursor_segment', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('pending', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('channel_retention').execute();
}
