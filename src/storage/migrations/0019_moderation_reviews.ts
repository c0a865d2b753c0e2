import { type Kysely, sql } from 'kysely';

/**
 * The moderation queue (modules/moderation-queue).
 *
 * - `message_flags.reason` and `user_flags.reason`: what the flagger wrote, if anything (null).
 * - `moderation_reviews`: one row per review a moderator made of a flagged message or user: the
 *   decision, the action on the author, the reviewer, and a snapshot of the flags and of the message as
 *   they were (the flags are deleted by the review; a deleted message keeps no text). Listed newest
 *   first by (created_at, id), whole or by target type. `lift_at` is when a ban the review set for a
 *   number of minutes is lifted; the partial index finds the lifts due without growing with the rest.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('message_flags').addColumn('reason', 'text').execute();
  await db.schema.alterTable('user_flags').addColumn('reason', 'text').execute();
  await db.schema
    .createTable('moderation_reviews')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('channel_id', 'varchar(64)')
    .addColumn('decision', 'varchar(16)', (col) => col.notNull())
    .addColumn('author_action', 'varchar(16)')
    .addColumn('author_action_minutes', 'integer')
    .addColumn('note', 'text')
    .addColumn('reviewer_kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('reviewer_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('flags', 'text', (col) => col.notNull())
    .addColumn('message_text', 'text')
    .addColumn('message_user_id', 'varchar(64)')
    .addColumn('lift_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('moderation_reviews_at').on('moderation_reviews').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('moderation_reviews_type_at').on('moderation_reviews').columns(['target_type', 'created_at', 'id']).execute();
  await db.schema.createIndex('moderation_reviews_lift').on('moderation_reviews').column('lift_at').where(sql<boolean>`lift_at is not null`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('moderation_reviews').execute();
  await db.schema.alterTable('user_flags').dropColumn('reason').execute();
  await db.schema.alterTable('message_flags').dropColumn('reason').execute();
}
