import { type Kysely, sql } from 'kysely';

/**
 * Messages and their tags. (channel_id, segment) is unique: the database itself refuses a duplicate
 * channelSegment whatever the code above it does. Every page query walks one of these indexes, so a
 * page costs the same in a channel of a hundred messages as in one of a million.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('channel_id', 'varchar(64)', (col) => col.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('segment', 'integer', (col) => col.notNull())
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('type', 'varchar(16)', (col) => col.notNull())
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('tags', 'text', (col) => col.notNull())
    .addColumn('parent_id', 'varchar(32)')
    .addColumn('children_number', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_deleted', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('file_id', 'varchar(32)')
    .addColumn('media', 'text')
    .addColumn('flag_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('reactions', 'text', (col) => col.notNull())
    .addColumn('reactions_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('edited_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('messages_channel_segment').unique().on('messages').columns(['channel_id', 'segment']).execute();
  // filterByParentId: top-level messages only, in segment order.
  await db.schema.createIndex('messages_top_level').on('messages').columns(['channel_id', 'segment']).where(sql<boolean>`parent_id is null`).execute();
  // The comments of one message, in segment order.
  await db.schema
    .createIndex('messages_parent')
    .on('messages')
    .columns(['parent_id', 'channel_id', 'segment'])
    .where(sql<boolean>`parent_id is not null`)
    .execute();
  // Deleted messages whose blobs are still on disk: what the media sweep visits. Stays tiny.
  await db.schema.createIndex('messages_media_pending').on('messages').column('id').where(sql<boolean>`is_deleted = 1 and media is not null`).execute();

  await db.schema
    .createTable('message_tags')
    .addColumn('message_id', 'varchar(32)', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('tag', 'varchar(128)', (col) => col.notNull())
    .addPrimaryKeyConstraint('message_tags_pk', ['message_id', 'tag'])
    .execute();
}
