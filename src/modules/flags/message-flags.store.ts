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

    /** Deletes the message's flags and answers them, newest first. */
    async takeFlags(messageId: string): Promise<Array<{ flagger_id: string; reason: string | null; created_at: number }>> {
      const rows = await db
        .selectFrom('message_flags')
        .select(['flagger_id', 'reason', 'created_at'])
        .where('message_id', '=', messageId)
        .orderBy('created_at', 'desc')
        .orderBy('flagger_id')
        .execute();
      await db.deleteFrom('message_flags').where('message_id', '=', messageId).execute();
      return rows.map((row) => ({ ...row, created_at: Number(row.created_at) }));
    },

    /** Up to `limit` messages the flagger has a flag on. */
    async flaggedBy(flaggerId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('message_flags').select('message_id').where('flagger_id', '=', flaggerId).limit(limit).execute();
      return rows.map((row) => row.message_id);
    },

    /** The flagger's flag on the message, if any; the count is the caller's to lower. */
    async deleteFlag(messageId: string, flaggerId: string): Promise<void> {
      await db.deleteFrom('message_flags').where('message_id', '=', messageId).where('flagger_id', '=', flaggerId).execute();
    },

    async flagCountOf(messageId: string): Promise<number> {
      const row = await db.selectFrom('messages').select('flag_count').where('id', '=', messageId).executeTakeFirst();
      return row?.flag_count ?? 0;
    },
  };
}
