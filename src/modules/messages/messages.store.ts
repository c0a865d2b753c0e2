import { type ExpressionBuilder, sql } from 'kysely';
import { appendEvents, type DomainEvent } from '../../events/outbox.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { runTransaction } from '../../storage/transactions.js';
import { createUsersStore, type UserRow } from '../users/users.store.js';
import { type MessageRow, presentCreatedMessageJson } from './messages.present.js';
import { type PosterRefusal, posterRefusal } from './send-rules.js';

/** A message ready to be written; only its channelSegment is still to be chosen. */
export interface MessageDraft {
  id: string;
  channelId: string;
  userId: string;
  type: string;
  /** JSON object */
  data: string;
  tags: string[];
  parentId: string | null;
  fileId: string | null;
  /** JSON of MessageMedia, or null */
  media: string | null;
  /** The topic inside the channel; null for the main topic. */
  topicId: string | null;
  createdAt: number;
  /** Posted through a member surface (client or bot API): the send rules are checked under the channel lock. */
  asMember: boolean;
}

export type CreateFailure = 'channelNotFound' | 'channelClosed' | 'parentNotFound' | PosterRefusal;
/** The message.created event: the presented record as JSON text (reused for the HTTP answer). */
export type MessageCreatedEvent = DomainEvent & { json: string };
export type CreateOutcome = { row: MessageRow; author: UserRow | undefined; event: MessageCreatedEvent } | { failure: CreateFailure };

export const MESSAGE_CREATED = 'message.created';

/** One key per (channel, user) pair, for maps of memberships and of authors' activity. */
export function memberKey(channelId: string, userId: string): string {
  return `${channelId}\u0000${userId}`;
}

/** The domain event of a created message, once its segment is known; `json` is its record's text. */
export function messageCreatedEvent(row: MessageRow, json: string = presentCreatedMessageJson(row)): MessageCreatedEvent {
  return { type: MESSAGE_CREATED, channelId: row.channel_id, userId: row.user_id, json };
}

export function rowOf(draft: MessageDraft, segment: number): MessageRow {
  return {
    id: draft.id,
    channel_id: draft.channelId,
    segment,
    user_id: draft.userId,
    type: draft.type,
    data: draft.data,
    tags: JSON.stringify(draft.tags),
    parent_id: draft.parentId,
    children_number: 0,
    is_deleted: 0,
    file_id: draft.fileId,
    media: draft.media,
    flag_count: 0,
    reactions: '{}',
    reactions_count: 0,
    edited_at: null,
    created_at: draft.createdAt,
    updated_at: draft.createdAt,
    topic_id: draft.topicId,
  };
}

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
      eb
        .selectFrom('message_tags')
        .select(sql`1`.as('one'))
        .whereRef('message_tags.message_id', '=', 'messages.id')
        .where('message_tags.tag', 'in', tags),
    );
}

const groupBy = <T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
};

export function createMessagesStore(db: Executor, dialect: Dialect) {
  return {
    async findById(id: string): Promise<MessageRow | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * Reads a channel's open/closed state and, on PostgreSQL, locks its row until the transaction
     * ends: every change of a channel's messages takes this lock first (then message rows), so two
     * writers never wait on each other in opposite orders.
     */
    async lockChannel(channelId: string): Promise<{ id: string; is_closed: number } | undefined> {
      const select = db.selectFrom('channels').select(['id', 'is_closed']).where('id', '=', channelId);
      return (dialect === 'postgres' ? select.forNoKeyUpdate() : select).executeTakeFirst();
    },

    /** lockChannel for several channels at once, locked in id order. */
    /** The membership rows of (channel, user) pairs, by memberKey: what the send rules read in a batch. */
    async membershipsOf(pairs: Array<{ channelId: string; userId: string }>): Promise<Map<string, { membership: string; mute_until: number | null }>> {
      const rows = await db
        .selectFrom('channel_members')
        .select(['channel_id', 'user_id', 'membership', 'mute_until'])
        .where((eb) => eb.or(pairs.map((pair) => eb.and([eb('channel_id', '=', pair.channelId), eb('user_id', '=', pair.userId)]))))
        .execute();
      return new Map(rows.map((row) => [memberKey(row.channel_id, row.user_id), row]));
    },

    async lockChannels(channelIds: string[]): Promise<Array<{ id: string; is_closed: number; mute_until: number | null }>> {
      const select = db.selectFrom('channels').select(['id', 'is_closed', 'mute_until']).where('id', 'in', channelIds).orderBy('id');
      return (dialect === 'postgres' ? select.forNoKeyUpdate() : select).execute();
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

    /** Marks a live message deleted and empties it; answers the new row, or undefined if it was not live. */
    async markDeleted(id: string, now: number): Promise<MessageRow | undefined> {
      return db
        .updateTable('messages')
        .set({ is_deleted: 1, data: '{}', file_id: null, updated_at: now })
        .where('id', '=', id)
        .where('is_deleted', '=', 0)
        .returningAll()
        .executeTakeFirst();
    },

    async addToMessageCount(channelId: string, delta: number): Promise<void> {
      await db
        .updateTable('channels')
        .set((eb) => ({ message_count: eb('message_count', '+', delta) }))
        .where('id', '=', channelId)
        .execute();
    },

    async addToChildren(messageId: string, delta: number, now: number): Promise<void> {
      await db
        .updateTable('messages')
        .set((eb) => ({ children_number: eb('children_number', '+', delta), updated_at: now }))
        .where('id', '=', messageId)
        .execute();
    },

    /** Closing a channel: every message is soft-deleted and emptied, and the counters go to zero. */
    async deleteAllInChannel(channelId: string, now: number): Promise<void> {
      await db
        .updateTable('messages')
        .set({ is_deleted: 1, data: '{}', file_id: null, children_number: 0, updated_at: now })
        .where('channel_id', '=', channelId)
        .where('is_deleted', '=', 0)
        .execute();
      await db.updateTable('messages').set({ children_number: 0 }).where('channel_id', '=', channelId).where('children_number', '<>', 0).execute();
      await db.updateTable('channels').set({ message_count: 0 }).where('id', '=', channelId).execute();
    },

    /** Which of these file ids a live message still holds (the messages_file_id index). */
    async heldFileIds(fileIds: readonly string[]): Promise<string[]> {
      if (fileIds.length === 0) return [];
      const rows = await db.selectFrom('messages').select('file_id').where('file_id', 'in', [...fileIds]).execute();
      return rows.flatMap((row) => (row.file_id === null ? [] : [row.file_id]));
    },

    /** Deleted messages whose blobs still exist (the messages_media_pending index). */
    async findPendingMedia(limit: number): Promise<Array<{ id: string; media: string | null }>> {
      return db
        .selectFrom('messages')
        .select(['id', 'media'])
        .where('is_deleted', '=', 1)
        .where('media', 'is not', null)
        .limit(limit)
        .execute();
    },

    async clearMedia(ids: string[]): Promise<void> {
      if (ids.length === 0) return;
      await db.updateTable('messages').set({ media: null }).where('id', 'in', ids).where('is_deleted', '=', 1).execute();
    },

    /**
     * Writes a batch of drafts in one transaction (group commit). Channel rows are locked first, in
     * id order, then parent rows are changed; a draft whose channel or parent fails its check is left
     * out before anything of it is written, so segments stay gapless. Each channel's segments are
     * taken with one UPDATE ... RETURNING, in arrival order.
     */
    async insertBatch(drafts: MessageDraft[]): Promise<CreateOutcome[]> {
      return runTransaction(db, async (trx) => {
        const store = createMessagesStore(trx, dialect);
        const outcomes: Array<CreateOutcome | undefined> = new Array(drafts.length);
        const indexed = drafts.map((draft, index) => ({ draft, index }));

        const channels = new Map((await store.lockChannels([...new Set(drafts.map((draft) => draft.channelId))])).map((row) => [row.id, row]));
        for (const { draft, index } of indexed) {
          const channel = channels.get(draft.channelId);
          if (channel === undefined) outcomes[index] = { failure: 'channelNotFound' };
          else if (channel.is_closed === 1) outcomes[index] = { failure: 'channelClosed' };
        }
        // Member sends: the send rules again, on the membership rows as they are under the channel lock
        // (bans, mutes and removals take it too), so one committed meanwhile is seen.
        const asMembers = indexed.filter((item) => outcomes[item.index] === undefined && item.draft.asMember);
        if (asMembers.length > 0) {
          const memberships = await store.membershipsOf(asMembers.map(({ draft }) => draft));
          for (const { draft, index } of asMembers) {
            const refusal = posterRefusal(channels.get(draft.channelId) as { mute_until: number | null }, memberships.get(memberKey(draft.channelId, draft.userId)), draft.createdAt);
            if (refusal !== null) outcomes[index] = { failure: refusal };
          }
        }
        // Parents are read under their channels' locks: a delete (which takes the channel lock first)
        // cannot slip between this check and the children_number update below.
        const withParent = indexed.filter((item) => outcomes[item.index] === undefined && item.draft.parentId !== null);
        const parentIds = [...new Set(withParent.map((item) => item.draft.parentId as string))];
        const liveParents = parentIds.length === 0 ? [] : await trx.selectFrom('messages').select(['id', 'channel_id']).where('id', 'in', parentIds).where('is_deleted', '=', 0).execute();
        const parentChannel = new Map(liveParents.map((row) => [row.id, row.channel_id]));
        for (const { draft, index } of withParent) {
          if (parentChannel.get(draft.parentId as string) !== draft.channelId) outcomes[index] = { failure: 'parentNotFound' };
        }
        const adopted = withParent.filter((item) => outcomes[item.index] === undefined);
        for (const [parentId, items] of groupBy(adopted, (item) => item.draft.parentId as string)) {
          await trx
            .updateTable('messages')
            .set((eb) => ({ children_number: eb('children_number', '+', items.length) }))
            .where('id', '=', parentId)
            .execute();
        }

        const live = indexed.filter((item) => outcomes[item.index] === undefined);
        const written: Array<{ draft: MessageDraft; index: number; row: MessageRow }> = [];
        for (const [channelId, items] of groupBy(live, (item) => item.draft.channelId)) {
          const lastActivity = Math.max(...items.map((item) => item.draft.createdAt));
          const taken = await trx
            .updateTable('channels')
            .set((eb) => ({
              last_segment: eb('last_segment', '+', items.length),
              message_count: eb('message_count', '+', items.length),
              last_activity: lastActivity,
            }))
            .where('id', '=', channelId)
            .returning('last_segment')
            .executeTakeFirstOrThrow();
          const first = taken.last_segment - items.length + 1;
          items.forEach((item, offset) => written.push({ draft: item.draft, index: item.index, row: rowOf(item.draft, first + offset) }));
        }
        if (written.length === 0) return outcomes as CreateOutcome[];

        const rows = written.map((item) => item.row);
        await trx.insertInto('messages').values(rows).execute();
        const tags = written.flatMap(({ draft }) => draft.tags.map((tag) => ({ message_id: draft.id, tag })));
        if (tags.length > 0) await trx.insertInto('message_tags').values(tags).execute();
        for (const authored of groupBy(rows, (row) => memberKey(row.channel_id, row.user_id)).values()) {
          const [{ channel_id: channelId, user_id: userId }] = authored as [MessageRow];
          await trx
            .updateTable('channel_members')
            .set({ last_activity: Math.max(...authored.map((row) => row.created_at)) })
            .where('channel_id', '=', channelId)
            .where('user_id', '=', userId)
            .where('membership', '=', 'member')
            .execute();
        }
        const authorIds = [...new Set(rows.map((row) => row.user_id))];
        const authors = new Map((await createUsersStore(trx).findByIds(authorIds)).map((user) => [user.id, user]));
        // Last: appendEvents holds the outbox lock (PostgreSQL) from here to commit.
        const events = rows.map((row) => messageCreatedEvent(row));
        await appendEvents(trx, events, Math.max(...rows.map((row) => row.created_at)));
        written.forEach(({ index, row }, position) => {
          outcomes[index] = { row, author: authors.get(row.user_id), event: events[position] as MessageCreatedEvent };
        });
        return outcomes as CreateOutcome[];
      });
    },
  };
}

export type MessagesStore = ReturnType<typeof createMessagesStore>;
