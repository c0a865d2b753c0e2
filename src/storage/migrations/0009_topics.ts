import { type Kysely, sql } from 'kysely';

/**
 * Topics inside a channel (the bot API's `tid`): a message carries its topic id, null for the
 * channel's main topic. A topic needs no row of its own: it exists once a message names it. The index
 * lets the client API list one topic's messages in segment order, as (channel_id, segment) does for
 * the whole channel; it is partial, so messages of the main topic (nearly all of them) cost nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('topic_id', 'varchar(64)').execute();
  await db.schema
    .createIndex('messages_topic')
    .on('messages')
    .columns(['channel_id', 'topic_id', 'segment'])
    .where(sql<boolean>`topic_id is not null`)
    .execute();
}
