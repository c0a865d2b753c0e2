import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../database.js';

/**
 * Deleting a message rewrites the copies Parley keeps of it: its `message.created` event in the outbox
 * and the webhook deliveries made from that event. Two indexes find them.
 *
 * `outbox_message_created` indexes a `message.created` event by its message id, read from the payload
 * text: the payload is the message record, whose first field is `messageId` and second `channelId`, so
 * the id's JSON spelling is what lies between `{"messageId":"` (14 characters) and `","channelId":`
 * (within the id, every `"` is escaped). Partial, so only message events carry an entry; a payload of
 * another shape gets a null key. events/outbox.ts repeats this expression, character for character,
 * since a database uses an expression index only for the very same expression.
 *
 * `webhook_deliveries_event` finds the deliveries of one event (the unique index leads with the bot).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const position = dialectOf(db) === 'postgres' ? 'strpos' : 'instr';
  // In parentheses: PostgreSQL takes an index expression other than a function call only so.
  const messageId = sql.raw(
    `(case when ${position}(payload, '","channelId":') > 15 then substr(payload, 15, ${position}(payload, '","channelId":') - 15) end)`,
  );
  await db.schema.createIndex('outbox_message_created').on('outbox').expression(messageId).where(sql<boolean>`type = 'message.created'`).execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_message_created').execute();
  await db.schema.dropIndex('webhook_deliveries_event').execute();
}
