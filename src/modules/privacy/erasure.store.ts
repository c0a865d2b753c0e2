import type { MessagesMode } from './privacy.types.js';
import type { Executor } from '../../storage/database.js';

/**
 * The erasure's own queries: what a user left in other modules' tables, found a bounded batch at a
 * time for those modules' services to remove or rewrite, and the erasure's own rows (erasures) that
 * mark it under way. The writes to other modules' tables are the owners' (their services' functions).
 */
export function createErasureStore(db: Executor) {
  return {
    ...lookups(db),
    ...pendingRows(db),
  };
}

export type ErasureStore = ReturnType<typeof createErasureStore>;

/** What the user still has, a batch at a time, for the services that remove it. */
function lookups(db: Executor) {
  return {
    messageReactions(userId: string, limit: number) {
      return db
        .selectFrom('message_reactions')
        .select(['id', 'message_id', 'reaction_name'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    postReactions(userId: string, limit: number) {
      return db.selectFrom('post_reactions').select(['id', 'post_id', 'reaction_name']).where('user_id', '=', userId).orderBy('id').limit(limit).execute();
    },

    async liveComments(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('comments')
        .select('id')
        .where('author_id', '=', userId)
        .where('is_deleted', '=', 0)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    async livePosts(userId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('posts').select('id').where('author_id', '=', userId).where('is_deleted', '=', 0).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    async liveMessages(userId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('messages').select('id').where('user_id', '=', userId).where('is_deleted', '=', 0).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    /**
     * Up to `limit` ids of the user's messages above `afterId`, in id order. No index leads from an
     * author to their messages: this walks the primary key upwards from `afterId`, filtering by author.
     */
    async messagesOf(userId: string, afterId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('messages').select('id').where('id', '>', afterId).where('user_id', '=', userId).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    /** Channels where the user is a member (not banned): the channels service removes them and counts. */
    async memberChannels(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('channel_members')
        .select('channel_id')
        .where('user_id', '=', userId)
        .where('membership', '=', 'member')
        .orderBy('channel_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.channel_id);
    },

    async currentCommunities(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('community_members')
        .select('community_id')
        .where('user_id', '=', userId)
        .where('left_at', 'is', null)
        .orderBy('community_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.community_id);
    },

    async avatarIds(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('avatars').select('id').where('user_id', '=', userId).execute();
      return rows.map((row) => row.id);
    },

    /** The user's outbox events (by acting user) after an id, in id order. */
    outboxEvents(userId: string, afterId: number, limit: number) {
      return db
        .selectFrom('outbox')
        .select(['id', 'type', 'payload', 'created_at'])
        .where('user_id', '=', userId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },
  };
}

/** The erasure's own rows, which mark an erasure under way until its last transaction. */
function pendingRows(db: Executor) {
  return {
    /** The erasure's own row: written by its first transaction, deleted with the user by its last. */
    async markPending(userId: string, mode: MessagesMode, now: number): Promise<void> {
      await db
        .insertInto('erasures')
        .values({ user_id: userId, messages_mode: mode, requested_at: now })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ messages_mode: mode }))
        .execute();
    },

    async clearPending(userId: string): Promise<void> {
      await db.deleteFrom('erasures').where('user_id', '=', userId).execute();
    },

    /** The erasures a stopped process left under way, oldest first. */
    async pending(): Promise<Array<{ user_id: string; messages_mode: MessagesMode }>> {
      const rows = await db.selectFrom('erasures').select(['user_id', 'messages_mode']).orderBy('requested_at').execute();
      return rows.map((row) => ({ user_id: row.user_id, messages_mode: row.messages_mode === 'anonymise' ? 'anonymise' : 'delete' }));
    },
  };
}
