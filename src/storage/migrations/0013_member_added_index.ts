import { type Kysely, sql } from 'kysely';

/**
 * The webhook consumer asks which bots joined a channel after a message (`joinsAfter`): with only the
 * (channel_id, id) index it visited every event of the channel in that range, each message included,
 * so a consumer behind paid for its whole backlog on every batch. A partial index of the joins alone
 * answers it from the joins.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('outbox_member_added').on('outbox').columns(['channel_id', 'id']).where(sql<boolean>`type = 'member.added'`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('outbox_member_added').execute();
}
