import type { Kysely } from 'kysely';

/**
 * Message reactions and message flags.
 *
 * - message_reactions: one row per (message, user, reaction name); the unique index is what makes a
 *   second identical reaction a 409 whatever the code above it does. Reactors of a message are paged
 *   by reaction id (creation order) on (message_id, id), or (message_id, reaction_name, id) when one
 *   name is asked for.
 * - message_reaction_counts: how many reactions of each name a message has; a row goes when its count
 *   reaches zero. (reaction_name, reaction_count, message_id) answers "most reacted with X" by walking
 *   the index from its high end, so the answer costs the same with a thousand messages or a million.
 *   The message row's `reactions` map and `reactions_count` are rebuilt from these rows on every change.
 * - message_flags: one flag per (message, flagger); messages.flag_count counts the rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('message_reactions')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('message_id', 'varchar(32)', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('reaction_name', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('message_reactions_unique').unique().on('message_reactions').columns(['message_id', 'user_id', 'reaction_name']).execute();
  await db.schema.createIndex('message_reactions_page').on('message_reactions').columns(['message_id', 'id']).execute();
  await db.schema.createIndex('message_reactions_name_page').on('message_reactions').columns(['message_id', 'reaction_name', 'id']).execute();

  await db.schema
    .createTable('message_reaction_counts')
    .addColumn('message_id', 'varchar(32)', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('reaction_name', 'varchar(64)', (col) => col.notNull())
    .addColumn('reaction_count', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('message_reaction_counts_pk', ['message_id', 'reaction_name'])
    .execute();
  await db.schema
    .createIndex('message_reaction_counts_most')
    .on('message_reaction_counts')
    .columns(['reaction_name', 'reaction_count', 'message_id'])
    .execute();

  await db.schema
    .createTable('message_flags')
    .addColumn('message_id', 'varchar(32)', (col) => col.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('flagger_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('message_flags_pk', ['message_id', 'flagger_id'])
    .execute();
}
