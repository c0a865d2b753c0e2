import { CompiledQuery, type ExpressionBuilder, sql } from 'kysely';
import { appendEvents, type DomainEvent, type OutboxEvent, toOutboxEvent } from '../../events/outbox.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { runTransaction } from '../../storage/transactions.js';
import { valuesList } from '../../storage/values-list.js';
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

/** A batch's outcomes, and its committed outbox events (for the relay's handOver). */
export interface WrittenBatch {
  outcomes: CreateOutcome[];
  events: OutboxEvent[];
}

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

/**
 * The order rows are locked in: the byte order of their UTF-8 ids, which is PostgreSQL's `collate "C"`
 * (lockChannels sorts with it). JavaScript's `<` compares UTF-16 units, and the database's default
 * collation is the locale's; a batch locking in one order and another batch in the other, on two
 * instances, would deadlock (ids are chosen by users: `B` and `a` sort apart in en-US and in C).
 */
function lockOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Groups by key, the groups in lockOrder of their keys. */
const groupBy = <T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return new Map([...groups].sort(([a], [b]) => lockOrder(a, b)));
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

    /** The membership rows of (channel, user) pairs, by memberKey: what the send rules read in a batch. */
    async membershipsOf(pairs: Array<{ channelId: string; userId: string }>): Promise<Map<string, { membership: string; mute_until: number | null }>> {
      const rows = await db
        .selectFrom('channel_members')
        .select(['channel_id', 'user_id', 'membership', 'mute_until'])
        .where((eb) => eb.or(pairs.map((pair) => eb.and([eb('channel_id', '=', pair.channelId), eb('user_id', '=', pair.userId)]))))
        .execute();
      return new Map(rows.map((row) => [memberKey(row.channel_id, row.user_id), row]));
    },

    /** lockChannel for several channels at once, locked in id order. */
    async lockChannels(channelIds: string[]): Promise<Array<{ id: string; is_closed: number; mute_until: number | null }>> {
      const select = db.selectFrom('channels').select(['id', 'is_closed', 'mute_until']).where('id', 'in', channelIds);
      // In lockOrder (byte order), the order insertBatch's takeSegments locks channels in.
      return (dialect === 'postgres' ? select.orderBy(sql`id collate "C"`).forNoKeyUpdate() : select.orderBy('id')).execute();
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
     * Writes a batch of drafts in one transaction (group commit; the PostgreSQL path, SQLite has
     * messages.sqlite.ts). A draft whose channel or parent fails its check is left out before anything
     * of it is written, so segments stay gapless; each channel's segments are taken with one UPDATE ...
     * RETURNING, in arrival order, channels in id order.
     *
     * Under load each statement waits for the busy event loop to read its answer, so the batch is as
     * few statements as it can be: for admin creates without parents, five round trips (BEGIN, the
     * channel UPDATE, one statement for the rows: messages, tags and the authors' activity, the outbox
     * append, COMMIT) where it took nine. The authors are read beside it on another pooled connection:
     * they are the callers, whose rows the batch does not change. PostgreSQL only (writeRows).
     */
    async insertBatch(drafts: MessageDraft[]): Promise<WrittenBatch> {
      const authorsRead = createUsersStore(db).findByIds([...new Set(drafts.map((draft) => draft.userId))]);
      // Awaited at the end of the transaction; a failure before that must not leave it unhandled.
      authorsRead.catch(() => undefined);
      const batch = await runTransaction(db, async (trx) => {
        const failures = new Map<number, CreateFailure>();
        const indexed = drafts.map((draft, index) => ({ draft, index }));
        // Drafts posted through a member surface, or with a parent, need reads under the channel
        // lock before the segments are taken; a batch of neither takes its segments at once.
        const checked = indexed.some(({ draft }) => draft.asMember || draft.parentId !== null);
        const live = checked ? await checkUnderChannelLocks(createMessagesStore(trx, dialect), trx, indexed, failures) : indexed;

        const written: Array<{ index: number; row: MessageRow }> = [];
        for (const [channelId, items] of groupBy(live, (item) => item.draft.channelId)) {
          const taken = await takeSegments(trx, channelId, items.length, Math.max(...items.map((item) => item.draft.createdAt)));
          if (taken === undefined || taken.is_closed === 1) {
            for (const item of items) failures.set(item.index, taken === undefined ? 'channelNotFound' : 'channelClosed');
            continue;
          }
          const first = taken.last_segment - items.length + 1;
          items.forEach((item, offset) => written.push({ index: item.index, row: rowOf(item.draft, first + offset) }));
        }
        if (written.length === 0) return { failures, written, recorded: [], events: [], authorRows: [] };
        const rows = written.map((item) => item.row);
        await writeRows(trx, rows, drafts);
        // Last: appendEvents holds the outbox lock (PostgreSQL) from here to commit.
        const now = Math.max(...rows.map((row) => row.created_at));
        const recorded = rows.map((row) => messageCreatedEvent(row));
        const ids = await appendEvents(trx, recorded, now);
        // The events as the relay would read them back once committed (for its handOver).
        const events = recorded.map((event, position) =>
          toOutboxEvent({ id: ids[position] as number, type: MESSAGE_CREATED, channel_id: event.channelId ?? null, user_id: event.userId ?? null, recipient_id: null, payload: event.json, created_at: now }),
        );
        // Awaited before commit: if the read failed, the batch must roll back rather than answer errors
        // for messages it wrote (the group commit then retries each draft, with the same id).
        return { failures, written, recorded, events, authorRows: await authorsRead };
      });
      const authors = new Map(batch.authorRows.map((user) => [user.id, user]));
      const outcomes: CreateOutcome[] = new Array(drafts.length);
      for (const [index, failure] of batch.failures) outcomes[index] = { failure };
      batch.written.forEach(({ index, row }, position) => {
        outcomes[index] = { row, author: authors.get(row.user_id), event: batch.recorded[position] as MessageCreatedEvent };
      });
      return { outcomes, events: batch.events };
    },
  };
}

type Indexed = { draft: MessageDraft; index: number };

/**
 * The checks of a batch that has member sends or comments, under the locks of its channels (taken in
 * id order): channel exists and is open, the send rules on the membership rows as they are now (bans,
 * mutes and removals take the channel lock too, so one committed meanwhile is seen), parents live in
 * the same channel (a delete takes the channel lock first, so none can slip between this check and
 * the children_number update). Records the failures in `failures`; answers the drafts that passed.
 */
async function checkUnderChannelLocks(store: MessagesStore, trx: Executor, indexed: Indexed[], failures: Map<number, CreateFailure>): Promise<Indexed[]> {
  const channels = new Map((await store.lockChannels([...new Set(indexed.map(({ draft }) => draft.channelId))])).map((row) => [row.id, row]));
  for (const { draft, index } of indexed) {
    const channel = channels.get(draft.channelId);
    if (channel === undefined) failures.set(index, 'channelNotFound');
    else if (channel.is_closed === 1) failures.set(index, 'channelClosed');
  }
  const asMembers = indexed.filter((item) => !failures.has(item.index) && item.draft.asMember);
  if (asMembers.length > 0) {
    const memberships = await store.membershipsOf(asMembers.map(({ draft }) => draft));
    for (const { draft, index } of asMembers) {
      const refusal = posterRefusal(channels.get(draft.channelId) as { mute_until: number | null }, memberships.get(memberKey(draft.channelId, draft.userId)), draft.createdAt);
      if (refusal !== null) failures.set(index, refusal);
    }
  }
  const withParent = indexed.filter((item) => !failures.has(item.index) && item.draft.parentId !== null);
  const parentIds = [...new Set(withParent.map((item) => item.draft.parentId as string))];
  const liveParents = parentIds.length === 0 ? [] : await trx.selectFrom('messages').select(['id', 'channel_id']).where('id', 'in', parentIds).where('is_deleted', '=', 0).execute();
  const parentChannel = new Map(liveParents.map((row) => [row.id, row.channel_id]));
  for (const { draft, index } of withParent) {
    if (parentChannel.get(draft.parentId as string) !== draft.channelId) failures.set(index, 'parentNotFound');
  }
  const adopted = withParent.filter((item) => !failures.has(item.index));
  for (const [parentId, items] of groupBy(adopted, (item) => item.draft.parentId as string)) {
    await trx
      .updateTable('messages')
      .set((eb) => ({ children_number: eb('children_number', '+', items.length) }))
      .where('id', '=', parentId)
      .execute();
  }
  return indexed.filter((item) => !failures.has(item.index));
}

/**
 * Moves an open channel's segment counter by `count` and answers where it ended, with the channel's
 * closed flag (a closed channel is left as it was); undefined when the channel does not exist. The
 * UPDATE takes the channel's row lock, so a batch that had nothing to check under it needs no
 * separate locking read.
 */
async function takeSegments(trx: Executor, channelId: string, count: number, lastActivity: number) {
  return trx
    .updateTable('channels')
    .set((eb) => {
      const open = eb('is_closed', '=', 0);
      return {
        last_segment: eb.case().when(open).then(eb('last_segment', '+', count)).else(eb.ref('last_segment')).end(),
        message_count: eb.case().when(open).then(eb('message_count', '+', count)).else(eb.ref('message_count')).end(),
        // Never backwards, as on SQLite (max): instances whose clocks differ a little write in any order.
        last_activity: eb.case().when(open).then(sql<number>`greatest(coalesce(last_activity, 0), ${lastActivity})`).else(eb.ref('last_activity')).end(),
      };
    })
    .where('id', '=', channelId)
    .returning(['is_closed', 'last_segment'])
    .executeTakeFirst();
}

/** The columns of a new message row, in the order writeRows binds them. */
const MESSAGE_COLUMNS = [
  'id', 'channel_id', 'segment', 'user_id', 'type', 'data', 'tags', 'parent_id', 'children_number', 'is_deleted', 'file_id', 'media',
  'flag_count', 'reactions', 'reactions_count', 'edited_at', 'created_at', 'updated_at', 'topic_id',
] as const satisfies ReadonlyArray<keyof MessageRow>;

/** A VALUES list outside an insert has no target columns to take its types from. */
const ACTIVITY_CASTS = ['::text', '::text', '::bigint', '::integer'];

/**
 * One statement for a batch's rows: the messages and their tags are inserted by data-modifying CTEs,
 * and the statement itself moves each author's last activity in the channel. None of them reads what
 * another writes, so running them as one statement changes nothing but the round trips. At most
 * 19 x 256 + 2 x 256 x 100 + 3 x 256 = 56,832 parameters (the group commit's 256 drafts, 100 tags
 * each), under PostgreSQL's 65,535.
 */
async function writeRows(trx: Executor, rows: MessageRow[], drafts: MessageDraft[]): Promise<void> {
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of MESSAGE_COLUMNS) parameters.push(row[column]);
  const tagsOf = new Map(drafts.map((draft) => [draft.id, draft.tags]));
  let tagCount = 0;
  for (const row of rows) {
    for (const tag of tagsOf.get(row.id) ?? []) {
      parameters.push(row.id, tag);
      tagCount += 1;
    }
  }
  const activity = [...groupBy(rows, (row) => memberKey(row.channel_id, row.user_id)).values()];
  for (const authored of activity) {
    const [{ channel_id: channelId, user_id: userId }] = authored as [MessageRow];
    parameters.push(channelId, userId, Math.max(...authored.map((row) => row.created_at)), Math.max(...authored.map((row) => row.segment)));
  }
  let next = 1;
  const take = (count: number, width: number, casts?: readonly string[]) => {
    const list = valuesList(count, width, next, casts);
    next += count * width;
    return list;
  };
  const messageValues = take(rows.length, MESSAGE_COLUMNS.length);
  const tagInsert = tagCount === 0 ? '' : `, new_tags as (insert into message_tags (message_id, tag) values ${take(tagCount, 2)} on conflict do nothing)`;
  await trx.executeQuery(
    CompiledQuery.raw(
      `with new_messages as (insert into messages (${MESSAGE_COLUMNS.join(', ')}) values ${messageValues})${tagInsert}
       update channel_members as member set last_activity = greatest(coalesce(member.last_activity, 0), activity.at),
         read_to_segment = greatest(member.read_to_segment, activity.segment)
       from (values ${take(activity.length, 4, ACTIVITY_CASTS)}) as activity (channel_id, user_id, at, segment)
       where member.channel_id = activity.channel_id and member.user_id = activity.user_id and member.membership = 'member'`,
      parameters,
    ),
  );
}

export type MessagesStore = ReturnType<typeof createMessagesStore>;
