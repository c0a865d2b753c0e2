import { CompiledQuery } from 'kysely';
import { appendEvents } from '../../events/outbox.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { valuesList } from '../../storage/values-list.js';
import { AUTHOR_READ_ROW, authorReadsUpdate, moveChannelCounters, pushAuthorRead, takeChannelSegments } from '../channels/channel-counters.service.js';
import type { UserRow } from '../users/users.types.js';
import {
  type ChannelState,
  type CreatePlan,
  type CreateReads,
  type MessageDraft,
  type MessageWriter,
  memberKey,
  needsDraftChecks,
  outcomesOf,
  planCreates,
} from './create-rules.js';
import type { MessageRow } from './messages.present.js';
import { createMessagesStore } from './messages.store.js';

/**
 * The order rows are locked in: the byte order of their UTF-8 ids, which is PostgreSQL's `collate "C"`
 * (lockChannels sorts with it). JavaScript's `<` compares UTF-16 units, and the database's default
 * collation is the locale's; a batch locking in one order and another batch in the other, on two
 * instances, would deadlock (ids are chosen by users: `B` and `a` sort apart in en-US and in C).
 */
function lockOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A map's entries in lockOrder of their keys. */
function inLockOrder<T>(map: ReadonlyMap<string, T>): Array<[string, T]> {
  return [...map].sort(([a], [b]) => lockOrder(a, b));
}

/** Groups by key, the groups in lockOrder of their keys. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Array<[string, T[]]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return inLockOrder(groups);
}

/**
 * The PostgreSQL writer of message creation: the create rules (create-rules.ts) over a batch of drafts
 * in one transaction (group commit). Each channel's segments are taken in arrival order, channels in
 * lockOrder, so segments stay gapless and two batches never lock in opposite orders.
 *
 * Under load each statement waits for the busy event loop to read its answer, so the batch is as few
 * statements as it can be: for admin creates without parents, five round trips (BEGIN, the channel
 * UPDATE that takes the segments, one statement for the rows: messages, tags and the authors'
 * activity, the outbox append, COMMIT). The authors are read beside it on another pooled connection
 * (`readAuthors`): they are the callers, whose rows the batch does not change.
 */
export function createPostgresMessageWriter(db: Executor, dialect: Dialect, readAuthors: (userIds: string[]) => Promise<UserRow[]>): MessageWriter {
  return {
    async insertBatch(drafts) {
      const authorsRead = readAuthors([...new Set(drafts.map((draft) => draft.userId))]);
      // Awaited at the end of the transaction; a failure before that must not leave it unhandled.
      authorsRead.catch(() => undefined);
      const batch = await runTransaction(db, async (trx) => {
        // Drafts posted through a member surface, or with a parent, need reads under the channel
        // locks before the segments are taken; a batch of neither takes its segments at once.
        const checked = drafts.some(needsDraftChecks);
        const plan = checked ? planCreates(drafts, await readUnderLocks(trx, dialect, drafts)) : await planTakingSegments(trx, drafts);
        if (plan.written.length === 0) return { plan, authors: [] };
        if (checked) await writeCounters(trx, plan);
        await writeRows(trx, plan);
        // Last: appendEvents holds the outbox lock from here to commit.
        const rows = plan.written.map(({ row }) => row);
        await appendEvents(
          trx,
          plan.written.map(({ event }) => event),
          Math.max(...rows.map((row) => row.created_at)),
        );
        // Awaited before commit: if the read failed, the batch must roll back rather than answer errors
        // for messages it wrote (the group commit then retries each draft, with the same id).
        return { plan, authors: await authorsRead };
      });
      const authors = new Map(batch.authors.map((user) => [user.id, user]));
      return outcomesOf(batch.plan, (userId) => authors.get(userId));
    },
  };
}

/**
 * What the rules read for a batch with member sends or comments, under the locks of its channels
 * (taken in lockOrder): bans, mutes and removals take the channel lock too, so one committed meanwhile
 * is seen, and a delete takes it before a message's, so no parent can be deleted between this check
 * and its children_number update.
 */
async function readUnderLocks(trx: Executor, dialect: Dialect, drafts: readonly MessageDraft[]): Promise<CreateReads> {
  const store = createMessagesStore(trx, dialect);
  const locked = await store.lockChannels([...new Set(drafts.map((draft) => draft.channelId))]);
  const channels = new Map(locked.map((row) => [row.id, { closed: row.is_closed === 1, muteUntil: row.mute_until, lastSegment: row.last_segment }]));
  const open = drafts.filter((draft) => channels.get(draft.channelId)?.closed === false);
  const asMembers = open.filter((draft) => draft.asMember);
  const memberships = asMembers.length > 0 ? await store.membershipsOf(asMembers) : new Map<string, never>();
  const parentIds = [...new Set(open.flatMap((draft) => (draft.parentId === null ? [] : [draft.parentId])))];
  const parents = await store.liveMessageChannels(parentIds);
  return {
    channel: (channelId) => channels.get(channelId),
    membership: (channelId, userId) => memberships.get(memberKey(channelId, userId)),
    isLiveParent: (parentId, channelId) => parents.get(parentId) === channelId,
  };
}

/**
 * A batch without draft checks: each channel's segments are taken first, for all its drafts, by an
 * UPDATE that takes the channel's row lock too (no separate locking read); the rules then find every
 * draft of an open channel accepted, numbered as taken.
 */
async function planTakingSegments(trx: Executor, drafts: readonly MessageDraft[]): Promise<CreatePlan> {
  const states = new Map<string, ChannelState>();
  for (const [channelId, items] of groupBy(drafts, (draft) => draft.channelId)) {
    const taken = await takeChannelSegments(trx, channelId, items.length, Math.max(...items.map((draft) => draft.createdAt)));
    if (taken === undefined) continue;
    const closed = taken.is_closed === 1;
    states.set(channelId, { closed, muteUntil: null, lastSegment: closed ? taken.last_segment : taken.last_segment - items.length });
  }
  return planCreates(drafts, { channel: (channelId) => states.get(channelId), membership: () => undefined, isLiveParent: () => false });
}

/** The counters of a checked batch, whose channels are locked already: segments, counts, activity, then parents. */
async function writeCounters(trx: Executor, plan: CreatePlan): Promise<void> {
  for (const [channelId, tally] of inLockOrder(plan.channels)) await moveChannelCounters(trx, channelId, tally);
  for (const [parentId, added] of inLockOrder(plan.parents)) {
    await trx
      .updateTable('messages')
      .set((eb) => ({ children_number: eb('children_number', '+', added) }))
      .where('id', '=', parentId)
      .execute();
  }
}

/** The columns of a new message row, in the order writeRows binds them. */
const MESSAGE_COLUMNS = [
  'id',
  'channel_id',
  'segment',
  'user_id',
  'type',
  'data',
  'tags',
  'parent_id',
  'children_number',
  'is_deleted',
  'file_id',
  'media',
  'flag_count',
  'reactions',
  'reactions_count',
  'edited_at',
  'created_at',
  'updated_at',
  'topic_id',
] as const satisfies ReadonlyArray<keyof MessageRow>;

/**
 * One statement for a batch's rows: the messages and their tags are inserted by data-modifying CTEs,
 * and the statement itself is the channels module's update of each author's activity and read marker
 * (authorReadsUpdate). None of them reads what
 * another writes, so running them as one statement changes nothing but the round trips. At most
 * 19 x 256 + 2 x 256 x 100 + 4 x 256 = 57,088 parameters (the group commit's 256 drafts, 100 tags
 * each), under PostgreSQL's 65,535.
 */
async function writeRows(trx: Executor, plan: CreatePlan): Promise<void> {
  const parameters: unknown[] = [];
  for (const { row } of plan.written) for (const column of MESSAGE_COLUMNS) parameters.push(row[column]);
  for (const { messageId, tag } of plan.tags) parameters.push(messageId, tag);
  const activity = inLockOrder(plan.authors);
  for (const [, author] of activity) pushAuthorRead(parameters, author);
  let next = 1;
  const take = (count: number, width: number, casts?: readonly string[]) => {
    const list = valuesList(count, width, next, casts);
    next += count * width;
    return list;
  };
  const messageValues = take(plan.written.length, MESSAGE_COLUMNS.length);
  const tagInsert =
    plan.tags.length === 0 ? '' : `, new_tags as (insert into message_tags (message_id, tag) values ${take(plan.tags.length, 2)} on conflict do nothing)`;
  await trx.executeQuery(
    CompiledQuery.raw(
      `with new_messages as (insert into messages (${MESSAGE_COLUMNS.join(', ')}) values ${messageValues})${tagInsert}
       ${authorReadsUpdate(take(activity.length, AUTHOR_READ_ROW.width, AUTHOR_READ_ROW.casts))}`,
      parameters,
    ),
  );
}
