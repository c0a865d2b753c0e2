import type SQLite from 'better-sqlite3';
import type { OutboxEvent } from '../../events/catalogue.js';
import { toOutboxEvent } from '../../events/outbox.js';
import type { Executor } from '../../storage/database.js';
import { announceCommittedEvents } from '../../storage/transactions.js';
import type { UserRow } from '../users/users.types.js';
import {
  type CreateOutcome,
  type CreatePlan,
  type CreateReads,
  MESSAGE_CREATED,
  type MessageDraft,
  type MessageWriter,
  outcomesOf,
  planCreates,
} from './create-rules.js';
import type { MessageRow } from './messages.present.js';

/**
 * A new message row as one VALUES tuple: the bound values (pushMessageValues, same order), then the
 * constants every new message starts with (rowOf in create-rules.ts builds the same row in memory,
 * and the create answers with that copy). Constants are not bound: fewer values to convert per row.
 */
const MESSAGE_INSERT = {
  into:
    'insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, file_id, media, created_at, updated_at, topic_id, ' +
    'children_number, is_deleted, flag_count, reactions, reactions_count, edited_at)',
  tuple: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '{}', 0, null)",
  width: 13,
};
function pushMessageValues(values: SqlValue[], row: MessageRow): void {
  values.push(
    row.id,
    row.channel_id,
    row.segment,
    row.user_id,
    row.type,
    row.data,
    row.tags,
    row.parent_id,
    row.file_id,
    row.media,
    row.created_at,
    row.updated_at,
    row.topic_id,
  );
}
/** Its `message.created` outbox event (appendEvents in events/outbox.ts writes the same columns). */
const EVENT_INSERT = {
  into: 'insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at)',
  tuple: `('${MESSAGE_CREATED}', ?, ?, null, ?, ?)`,
  width: 4,
};
/** Rows per multi-row INSERT: one statement per chunk instead of one per row. */
const CHUNK = 32;

type SqlValue = string | number | null;

/**
 * `insert into table (columns) values tuple, tuple, ...` for n rows (`into` is the statement's head, its
 * table written out so npm run owners reads it), prepared once per n, run with the rows' values as one
 * flat list of arguments (better-sqlite3 binds arguments faster than the elements of one array argument,
 * and a nested array's flat() cost more than both; measured per row: 0.63, 0.88 and 1.66 µs). With `returning`, it answers the new rows' ids in row order (`returning id`).
 */
function multiInsert(sqlite: SQLite.Database, shape: { into: string; tuple: string; width: number }, returning: boolean) {
  const byCount = new Map<number, SQLite.Statement<SqlValue[], number>>();
  const statementFor = (rows: number): SQLite.Statement<SqlValue[], number> => {
    let statement = byCount.get(rows);
    if (!statement) {
      const text = `${shape.into} values ${Array(rows).fill(shape.tuple).join(', ')}`;
      statement = returning ? sqlite.prepare<SqlValue[], number>(`${text} returning id`).pluck() : sqlite.prepare<SqlValue[], number>(text);
      byCount.set(rows, statement);
    }
    return statement;
  };
  return (values: SqlValue[]): number[] => {
    const rows = values.length / shape.width;
    let ids: number[] = [];
    for (let start = 0; start < rows; start += CHUNK) {
      const count = Math.min(CHUNK, rows - start);
      const chunk = count === rows ? values : values.slice(start * shape.width, (start + count) * shape.width);
      const statement = statementFor(count);
      if (!returning) statement.run(...chunk);
      else ids = ids.length === 0 ? statement.all(...chunk) : ids.concat(statement.all(...chunk));
    }
    return ids;
  };
}

/**
 * The SQLite writer of message creation, on prepared statements run straight on better-sqlite3: the
 * create rules (create-rules.ts) without a query builder on the server's busiest path.
 *
 * A batch is one IMMEDIATE transaction. Every read the rules make (channel, membership, parent) comes
 * before the batch's first write, so a refused draft leaves nothing behind and needs no savepoint
 * (savepoints cost a statement journal per page). Counters are written once per channel, parent and
 * member. An unexpected error rolls the whole batch back; the group commit then retries its drafts one
 * by one. After the commit the batch's events go to the commit listeners (the relay) as they are.
 *
 * The raw connection is used only while holding Kysely's connection (`db.connection()`), so these
 * statements never land inside a Kysely transaction that is waiting on an await.
 */
export function createSqliteMessageWriter(db: Executor, sqlite: SQLite.Database): MessageWriter {
  const readChannel = sqlite.prepare<[string], { is_closed: number; last_segment: number; mute_until: number | null }>(
    'select is_closed, last_segment, mute_until from channels where id = ?',
  );
  const readMembership = sqlite.prepare<[string, string], { membership: string; mute_until: number | null }>(
    'select membership, mute_until from channel_members where channel_id = ? and user_id = ?',
  );
  const isLiveParent = sqlite.prepare<[string, string], { one: number }>('select 1 as one from messages where id = ? and channel_id = ? and is_deleted = 0');
  const insertTag = sqlite.prepare<[string, string]>('insert or ignore into message_tags (message_id, tag) values (?, ?)');
  const insertMessages = multiInsert(sqlite, MESSAGE_INSERT, false);
  // Mirrors events/outbox.ts appendEvents, which is asynchronous and so cannot run in this transaction.
  const insertEvents = multiInsert(sqlite, EVENT_INSERT, true);
  const updateChannel = sqlite.prepare<[number, number, number, string]>(
    'update channels set last_segment = ?, message_count = message_count + ?, last_activity = max(coalesce(last_activity, 0), ?) where id = ?',
  );
  const addChildren = sqlite.prepare<[number, string]>('update messages set children_number = children_number + ? where id = ?');
  // An author has read their own message: the read marker moves up to it.
  const touchMember = sqlite.prepare<[number, number, string, string]>(
    "update channel_members set last_activity = max(coalesce(last_activity, 0), ?), read_to_segment = max(read_to_segment, ?) where channel_id = ? and user_id = ? and membership = 'member'",
  );
  const findUser = sqlite.prepare<[string], UserRow>('select * from users where id = ?');

  const reads: CreateReads = {
    channel(channelId) {
      const found = readChannel.get(channelId);
      return found ? { closed: found.is_closed === 1, muteUntil: found.mute_until, lastSegment: found.last_segment } : undefined;
    },
    membership: (channelId, userId) => readMembership.get(channelId, userId),
    isLiveParent: (parentId, channelId) => isLiveParent.get(parentId, channelId) !== undefined,
  };

  /** Writes what the rules decided; answers the committed events, as the relay would read them back. */
  function write(plan: CreatePlan): OutboxEvent[] {
    const messageValues: SqlValue[] = [];
    const eventValues: SqlValue[] = [];
    for (const { row, event } of plan.written) {
      pushMessageValues(messageValues, row);
      eventValues.push(row.channel_id, row.user_id, event.json, row.created_at);
    }
    insertMessages(messageValues);
    for (const { messageId, tag } of plan.tags) insertTag.run(messageId, tag);
    const eventIds = insertEvents(eventValues);
    for (const [channelId, channel] of plan.channels) updateChannel.run(channel.lastSegment, channel.added, channel.lastActivity, channelId);
    for (const [parentId, added] of plan.parents) addChildren.run(added, parentId);
    for (const author of plan.authors.values()) touchMember.run(author.at, author.segment, author.channelId, author.userId);
    // Ids in row order (`returning id`).
    return plan.written.map(({ row, event }, index) =>
      toOutboxEvent({
        id: eventIds[index] as number,
        type: MESSAGE_CREATED,
        channel_id: row.channel_id,
        user_id: row.user_id,
        recipient_id: null,
        payload: event.json,
        created_at: row.created_at,
      }),
    );
  }

  const insertAll = sqlite.transaction((drafts: MessageDraft[]): { outcomes: CreateOutcome[]; events: OutboxEvent[] } => {
    const plan = planCreates(drafts, reads);
    const events = write(plan);
    const authors = new Map<string, UserRow | undefined>();
    const authorOf = (userId: string): UserRow | undefined => {
      if (!authors.has(userId)) authors.set(userId, findUser.get(userId));
      return authors.get(userId);
    };
    return { outcomes: outcomesOf(plan, authorOf), events };
  });

  return {
    async insertBatch(drafts) {
      return db.connection().execute(async () => {
        const { outcomes, events } = insertAll.immediate(drafts);
        // Committed: the relay takes the events as they are, with no read back.
        announceCommittedEvents(db, events);
        return outcomes;
      });
    },
  };
}
