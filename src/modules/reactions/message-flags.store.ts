import type { Executor } from '../../storage/database.js';

/** Message flags: one row per (message, flagger); messages.flag_count moves only when a row is added. */
export function createMessageFlagsStore(db: Executor) {
  return {
    /** Adds one flag per flagger; answers false when this flagger had already flagged the message. */
    async addFlag(messageId: string, flaggerId: string, reason: string | null, now: number): Promise<boolean> {
      const inserted = await db
        .insertInto('message_flags')
        .values({ message_id: messageId, flagger_id: flaggerId, reason, created_at: now })
        .onConflict((oc) => oc.columns(['message_id', 'flagger_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      // An atomic increment, in the transaction of the insert: flagCount stays the number of rows.
      await db
        .updateTable('messages')
        .set((eb) => ({ flag_count: eb('flag_count', '+', 1) }))
        .where('id', '=', messageId)
        .execute();
      return true;
    },

    async flagCountOf(messageId: string): Promise<number> {
      const row = await db.selectFrom('messages').select('flag_count').where('id', '=', messageId).executeTakeFirst();
      return row?.flag_count ?? 0;
    },
  };
}
