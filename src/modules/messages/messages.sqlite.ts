import type SQLite from 'better-sqlite3';
import type { OutboxEvent } from '../../events/catalogue.js';
import { prepareSqliteEventInsert, SQLITE_EVENT_WIDTH, toOutboxEvent } from '../../events/outbox.js';
import type { Executor } from '../../storage/database.js';
import { announceCommittedEvents } from '../../storage/transactions.js';
import { prepareSqliteCounterStatements } from '../channels/channel-counters.service.js';
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
/** Rows per multi-row INSERT: one statement per chunk instead of one per row. */
const CHUNK = 32;

type SqlValue = string | number | null;

/** A multi-row INSERT: how many values each row binds, and its statement for n rows. */
interface MultiInsertShape {
  width: number;
  prepare: (rows: number) => SQLite.Statement<SqlValue[], number>;
}

/** The INSERT of n new messages (MESSAGE_INSERT.into writes the table out, so npm run owners reads it). */
function prepareMessageInsert(sqlite: SQLite.Database, rows: number): SQLite.Statement<SqlValue[], number> {
  return sqlite.prepare<SqlValue[], number>(`${MESSAGE_INSERT.into} values ${Array(rows).fill(MESSAGE_INSERT.tuple).join(', ')}`);
}

/**
 * A multi-row INSERT over any number of rows, CHUNK rows per statement, each row count's statement
 * prepared once. The rows' values go as one flat list of arguments (better-sqlite3 binds arguments
 * faster than the elements of one array argument, and a nested array's flat() cost more than both;
 * measured per row: 0.63, 0.88 and 1.66 µs). With `returning`, the shape's statements answer the new
 * rows' ids (`returning id`), and so does this, in row order.
 */
function multiInsert(shape: MultiInsertShape, returning: boolean) {
  const byCount = new Map<number, SQLite.Statement<SqlValue[], number>>();
  const statementFor = (rows: number): SQLite.Statement<SqlValue[], number> => {
    let statement = byCount.get(rows);
    if (!statement) {
      statement = shape.prepare(rows);
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
  const insertMessages = multiInsert({ width: MESSAGE_INSERT.width, prepare: (rows) => prepareMessageInsert(sqlite, rows) }, false);
  // Each message's `message.created` event: the outbox's own statement, as appendEvents would write it.
  const insertEvents = multiInsert({ width: SQLITE_EVENT_WIDTH, prepare: (rows) => prepareSqliteEventInsert(sqlite, MESSAGE_CREATED, rows) }, true);
  // The channel's counters, and the authors' read markers (an author has read their own message).
  const { moveCounters, markAuthorRead } = prepareSqliteCounterStatements(sqlite);
  const addChildren = sqlite.prepare<[number, string]>('update messages set children_number = children_number + ? where id = ?');
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
    for (const [channelId, channel] of plan.channels) moveCounters.run(channel.lastSegment, channel.added, channel.lastActivity, channelId);
    for (const [parentId, added] of plan.parents) addChildren.run(added, parentId);
    for (const author of plan.authors.values()) markAuthorRead.run(author.at, author.segment, author.channelId, author.userId);
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
