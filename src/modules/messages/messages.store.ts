import { type ExpressionBuilder, sql } from 'kysely';
import { chunks } from '../../storage/chunks.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { type MembershipState, memberKey } from './create-rules.js';
import { type MessageRow, parseMedia } from './messages.present.js';

export interface MessagePageQuery {
  channelId: string;
  /** Only comments of this message. */
  parentId: string | null;
  /** Only messages without a parent (ignored when parentId is given). */
  topLevelOnly: boolean;
  /** undefined: every topic; null: the main topic only; a string: that topic only. */
  topicId?: string | null | undefined;
  anyTags: string[];
  excludeTags: string[];
  /** Exclusive segment bounds. */
  after: number | null;
  before: number | null;
  order: 'asc' | 'desc';
  limit: number;
}

function hasAnyTag(tags: string[]) {
  return (eb: ExpressionBuilder<Database, 'messages'>) =>
    eb.exists(
      eb.selectFrom('message_tags').select(sql`1`.as('one')).whereRef('message_tags.message_id', '=', 'messages.id').where('message_tags.tag', 'in', tags),
    );
}

/** What the writers read under the channel locks (every change of a channel's messages takes its lock first). */
function lockingQueries(db: Executor, dialect: Dialect) {
  return {
    /**
     * Reads a channel's open/closed state and, on PostgreSQL, locks its row until the transaction
     * ends: every change of a channel's messages takes this lock first (then message rows), so two
     * writers never wait on each other in opposite orders.
     */
    async lockChannel(channelId: string): Promise<{ id: string; is_closed: number } | undefined> {
      const select = db.selectFrom('channels').select(['id', 'is_closed']).where('id', '=', channelId);
      return (dialect === 'postgres' ? select.forNoKeyUpdate() : select).executeTakeFirst();
    },

    /** The membership rows of (channel, user) pairs, by memberKey: what the send rules read in a batch. */
    async membershipsOf(pairs: ReadonlyArray<{ channelId: string; userId: string }>): Promise<Map<string, MembershipState>> {
      const rows = await db
        .selectFrom('channel_members')
        .select(['channel_id', 'user_id', 'membership', 'mute_until'])
        .where((eb) => eb.or(pairs.map((pair) => eb.and([eb('channel_id', '=', pair.channelId), eb('user_id', '=', pair.userId)]))))
        .execute();
      return new Map(rows.map((row) => [memberKey(row.channel_id, row.user_id), row]));
    },

    /** lockChannel for several channels at once, locked in id order, with what the create rules read of them. */
    async lockChannels(channelIds: string[]): Promise<Array<{ id: string; is_closed: number; mute_until: number | null; last_segment: number }>> {
      const select = db.selectFrom('channels').select(['id', 'is_closed', 'mute_until', 'last_segment']).where('id', 'in', channelIds);
      // In byte order, the order the PostgreSQL message writer takes channels in (lockOrder, messages.postgres.ts).
      return (dialect === 'postgres' ? select.orderBy(sql`id collate "C"`).forNoKeyUpdate() : select.orderBy('id')).execute();
    },

    /** The channel of each of these messages that is live (not deleted), by message id. */
    async liveMessageChannels(messageIds: string[]): Promise<Map<string, string>> {
      if (messageIds.length === 0) return new Map();
      const rows = await db.selectFrom('messages').select(['id', 'channel_id']).where('id', 'in', messageIds).where('is_deleted', '=', 0).execute();
      return new Map(rows.map((row) => [row.id, row.channel_id]));
    },
  };
}

/** The writes of deletes: one message, or all of a closing channel's. */
function deletionQueries(db: Executor) {
  return {
    /**
     * Marks a live message deleted and empties it; answers the new row, or undefined if it was not live.
     * `media` is what the blob sweep still needs of its media (mediaAfterDelete).
     */
    async markDeleted(id: string, now: number, media: string | null): Promise<MessageRow | undefined> {
      return db
        .updateTable('messages')
        .set({ is_deleted: 1, data: '{}', file_id: null, media, updated_at: now })
        .where('id', '=', id)
        .where('is_deleted', '=', 0)
        .returningAll()
        .executeTakeFirst();
    },

    async addToChildren(messageId: string, delta: number, now: number): Promise<void> {
      await db
        .updateTable('messages')
        .set((eb) => ({ children_number: eb('children_number', '+', delta), updated_at: now }))
        .where('id', '=', messageId)
        .execute();
    },

    /**
     * Marks the live ones of these messages deleted and empties them (a batch of retention); answers
     * the new rows. `media` stays as it was: the caller applies mediaAfterDelete to file messages.
     */
    async markManyDeleted(ids: readonly string[], now: number): Promise<MessageRow[]> {
      if (ids.length === 0) return [];
      return db
        .updateTable('messages')
        .set({ is_deleted: 1, data: '{}', file_id: null, updated_at: now })
        .where('id', 'in', [...ids])
        .where('is_deleted', '=', 0)
        .returningAll()
        .execute();
    },

    /** Closing a channel: every message is soft-deleted and emptied, and comment counts go to zero. */
    async deleteAllInChannel(channelId: string, now: number): Promise<void> {
      await db
        .updateTable('messages')
        .set({ is_deleted: 1, data: '{}', file_id: null, children_number: 0, updated_at: now })
        .where('channel_id', '=', channelId)
        .where('is_deleted', '=', 0)
        .execute();
      await db.updateTable('messages').set({ children_number: 0 }).where('channel_id', '=', channelId).where('children_number', '<>', 0).execute();
    },
  };
}

/** The counts of a message that the reactions module keeps, written in its transactions. */
function tallyQueries(db: Executor) {
  return {
    async writeReactionSummary(messageId: string, reactions: string, reactionsCount: number, now: number): Promise<void> {
      await db.updateTable('messages').set({ reactions, reactions_count: reactionsCount, updated_at: now }).where('id', '=', messageId).execute();
    },

    /** The review of the message's flags cleared them: none count any more. */
    async resetFlagCount(messageId: string): Promise<void> {
      await db.updateTable('messages').set({ flag_count: 0 }).where('id', '=', messageId).execute();
    },

    /** An atomic increment, in the transaction that inserted the flag: flagCount stays the number of rows. */
    async countFlag(messageId: string): Promise<void> {
      await db
        .updateTable('messages')
        .set((eb) => ({ flag_count: eb('flag_count', '+', 1) }))
        .where('id', '=', messageId)
        .execute();
    },

    /** An atomic decrement, in the transaction that deleted one flag row; a count already at zero stays. */
    async uncountFlag(messageId: string): Promise<void> {
      await db
        .updateTable('messages')
        .set((eb) => ({ flag_count: eb('flag_count', '-', 1) }))
        .where('id', '=', messageId)
        .where('flag_count', '>', 0)
        .execute();
    },
  };
}

/**
 * What a deleted message keeps of its media until the sweep removes the blobs: where they are. A file's
 * name and content type were the sender's, and go with the rest of the message.
 */
export function mediaAfterDelete(media: string | null): string | null {
  const parsed = parseMedia(media);
  if (parsed === null || parsed.kind !== 'file') return media;
  return JSON.stringify({ kind: 'file', fileId: parsed.fileId, name: '', contentType: '', size: 0 });
}

/** The blobs of messages: which are still held, which wait for removal. */
function mediaQueries(db: Executor) {
  return {
    /** Which of these file ids a live message still holds (the messages_file_id index). */
    async heldFileIds(fileIds: readonly string[]): Promise<string[]> {
      if (fileIds.length === 0) return [];
      const rows = await db
        .selectFrom('messages')
        .select('file_id')
        .where('file_id', 'in', [...fileIds])
        .execute();
      return rows.flatMap((row) => (row.file_id === null ? [] : [row.file_id]));
    },

    /** Deleted messages whose blobs still exist (the messages_media_pending index). */
    async findPendingMedia(limit: number): Promise<Array<{ id: string; media: string | null }>> {
      return db.selectFrom('messages').select(['id', 'media']).where('is_deleted', '=', 1).where('media', 'is not', null).limit(limit).execute();
    },

    /** The media of a channel's deleted messages whose blobs still exist (a close redacts them). */
    async pendingMediaIn(channelId: string): Promise<Array<{ id: string; media: string | null }>> {
      return db
        .selectFrom('messages')
        .select(['id', 'media'])
        .where('channel_id', '=', channelId)
        .where('is_deleted', '=', 1)
        .where('media', 'is not', null)
        .execute();
    },

    async setMedia(id: string, media: string | null): Promise<void> {
      await db.updateTable('messages').set({ media }).where('id', '=', id).execute();
    },

    async clearMedia(ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await db.updateTable('messages').set({ media: null }).where('id', 'in', ids).where('is_deleted', '=', 1).execute();
    },
  };
}

export function createMessagesStore(db: Executor, dialect: Dialect) {
  return {
    async findById(id: string): Promise<MessageRow | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findByIds(ids: readonly string[]): Promise<MessageRow[]> {
      const rows: MessageRow[] = [];
      for (const chunk of chunks(ids)) rows.push(...(await db.selectFrom('messages').selectAll().where('id', 'in', chunk).execute()));
      return rows;
    },

    /** limit rows of one page, in the asked order, walking the (channel_id, segment) index. */
    async listPage(query: MessagePageQuery): Promise<MessageRow[]> {
      let select = db.selectFrom('messages').selectAll().where('channel_id', '=', query.channelId);
      if (query.parentId !== null) select = select.where('parent_id', '=', query.parentId);
      else if (query.topLevelOnly) select = select.where('parent_id', 'is', null);
      if (query.topicId === null) select = select.where('topic_id', 'is', null);
      else if (query.topicId !== undefined) select = select.where('topic_id', '=', query.topicId);
      if (query.anyTags.length > 0) select = select.where(hasAnyTag(query.anyTags));
      if (query.excludeTags.length > 0) {
        const excluded = hasAnyTag(query.excludeTags);
        select = select.where((eb) => eb.not(excluded(eb)));
      }
      if (query.after !== null) select = select.where('segment', '>', query.after);
      if (query.before !== null) select = select.where('segment', '<', query.before);
      return select.orderBy('segment', query.order).limit(query.limit).execute();
    },

    /**
     * The id of the `budget`-th message below `beforeId` (from the newest when null), walking the
     * primary key downwards: where a bounded walk of that many rows ends. Undefined when no older
     * message is left below it (the walk reaches the oldest one). Reads the key alone (an index-only
     * scan on PostgreSQL).
     */
    async walkEnd(beforeId: string | null, budget: number): Promise<string | undefined> {
      let select = db.selectFrom('messages').select('id');
      if (beforeId !== null) select = select.where('id', '<', beforeId);
      const rows = await select
        .orderBy('id', 'desc')
        .limit(2)
        .offset(budget - 1)
        .execute();
      return rows.length === 2 ? rows[0]?.id : undefined;
    },

    /**
     * The messages of one user among those with ids in [fromId, beforeId), newest id first, up to
     * `limit`, deleted ones included; the row of `fromId` itself comes too whoever wrote it (its time
     * is where the walk reached). A range of the primary key, the author filtered in the database.
     */
    async authoredInRange(userId: string, range: { beforeId: string | null; fromId: string | null }, limit: number): Promise<MessageRow[]> {
      let select = db.selectFrom('messages').selectAll();
      if (range.beforeId !== null) select = select.where('id', '<', range.beforeId);
      const { fromId } = range;
      if (fromId !== null) select = select.where('id', '>=', fromId).where((eb) => eb.or([eb('user_id', '=', userId), eb('id', '=', fromId)]));
      else select = select.where('user_id', '=', userId);
      return select.orderBy('id', 'desc').limit(limit).execute();
    },

    /** These messages name `userId` as their author, whoever wrote them. */
    async reassignAuthor(ids: readonly string[], userId: string): Promise<void> {
      if (ids.length > 0) await db.updateTable('messages').set({ user_id: userId }).where('id', 'in', ids).execute();
    },

    ...lockingQueries(db, dialect),
    ...deletionQueries(db),
    ...tallyQueries(db),
    ...mediaQueries(db),
  };
}

export type MessagesStore = ReturnType<typeof createMessagesStore>;
