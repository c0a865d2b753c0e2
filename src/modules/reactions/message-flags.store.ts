import type { Executor } from '../../storage/database.js';

/** Message flags: one row per (message, flagger); messages.flag_count (the messages module's) moves only when a row is added. */
export function createMessageFlagsStore(db: Executor) {
  return {
    /** Adds one flag per flagger; answers false when this flagger had already flagged the message, true when the count must move. */
    async addFlag(messageId: string, flaggerId: string, reason: string | null, now: number): Promise<boolean> {
      const inserted = await db
        .insertInto('message_flags')
        .values({ message_id: messageId, flagger_id: flaggerId, reason, created_at: now })
        .onConflict((oc) => oc.columns(['message_id', 'flagger_id']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async flagCountOf(messageId: string): Promise<number> {
      const row = await db.selectFrom('messages').select('flag_count').where('id', '=', messageId).executeTakeFirst();
      return row?.flag_count ?? 0;
    },
  };
}
