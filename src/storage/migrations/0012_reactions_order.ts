import type { Kysely } from 'kysely';

/**
 * Reactors are listed in reaction order: by creation time, then id. Ids alone are object ids, whose
 * middle bytes are random per process, so within one second two instances' reactions sorted in any
 * order and a page could skip one made on the other instance.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('message_reactions_page').execute();
  await db.schema.dropIndex('message_reactions_name_page').execute();
  await db.schema.createIndex('message_reactions_page').on('message_reactions').columns(['message_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('message_reactions_name_page').on('message_reactions').columns(['message_id', 'reaction_name', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('message_reactions_page').execute();
  await db.schema.dropIndex('message_reactions_name_page').execute();
  await db.schema.createIndex('message_reactions_page').on('message_reactions').columns(['message_id', 'id']).execute();
  await db.schema.createIndex('message_reactions_name_page').on('message_reactions').columns(['message_id', 'reaction_name', 'id']).execute();
}
