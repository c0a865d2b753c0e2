import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import { chunks } from '../storage/chunks.js';
import { type Dialect, dialectOf, type Executor, type Storage } from '../storage/database.js';
import { valuesList } from '../storage/values-list.js';
import type { OutboxTable } from '../storage/schema.js';
import { recordAppendedEvents } from '../storage/transactions.js';
import type { DomainEvent, EventPayloads, EventType, OutboxEvent } from './catalogue.js';

export type { DomainEvent, EventType, OutboxEvent } from './catalogue.js';

/** The outbox payload column of an event. */
export function payloadOf(event: DomainEvent): string {
  return 'json' in event ? event.json : JSON.stringify(event.data ?? null);
}

/** Any number that identifies the outbox writers' advisory lock on PostgreSQL. */
const OUTBOX_LOCK_KEY = 7_263_541;
/** A VALUES list outside an insert has no target columns to take its types from; all are text but the time. */
const EVENT_CASTS = ['::text', '::text', '::text', '::text', '::text', '::bigint'];

/**
 * Appends events and answers their ids, in the order given. On PostgreSQL, a transaction-scoped
 * advisory lock makes outbox ids follow commit order: without it, a transaction could take id 5,
 * commit after the one holding id 6, and a reader that already moved past 6 would never see 5. The
 * lock is held only from this insert to commit. SQLite writers are serial already.
 *
 * On PostgreSQL the lock and the insert are one statement (one round trip, which under load is most
 * of a statement's cost): the rows are a join of the lock's one-row result with the values, so no row
 * exists, and no id is drawn from the sequence (the column default, evaluated per inserted row), until
 * the lock is held.
 */
export async function appendEvents(trx: Executor, events: readonly DomainEvent[], now: number): Promise<number[]> {
  if (events.length === 0) return [];
  const rows = events.map(
    (event): NewOutboxRow => ({
      type: event.type,
      channel_id: event.channelId ?? null,
      user_id: event.userId ?? null,
      recipient_id: event.recipientId ?? null,
      payload: payloadOf(event),
      created_at: now,
    }),
  );
  const ids =
    dialectOf(trx) === 'postgres' ? await insertUnderLock(trx, rows) : ascending(await trx.insertInto('outbox').values(rows).returning('id').execute());
  // The events as a read would find them once committed: the transaction layer hands them to the
  // relay after the commit (storage/transactions.ts), so nobody reads them back.
  recordAppendedEvents(
    trx,
    rows.map((row, index) => new StoredOutboxEvent(ids[index] as number, row) as OutboxEvent),
  );
  return ids;
}

async function insertUnderLock(trx: Executor, rows: readonly NewOutboxRow[]): Promise<number[]> {
  const parameters: unknown[] = [OUTBOX_LOCK_KEY];
  for (const row of rows) parameters.push(row.type, row.channel_id, row.user_id, row.recipient_id, row.payload, row.created_at);
  const inserted = await trx.executeQuery<{ id: number }>(
    CompiledQuery.raw(
      `insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at)
       select event.type, event.channel_id, event.user_id, event.recipient_id, event.payload, event.created_at
       from (select pg_advisory_xact_lock($1)) as outbox_lock,
         (values ${valuesList(rows.length, 6, 2, EVENT_CASTS)}) as event (type, channel_id, user_id, recipient_id, payload, created_at)
       returning id`,
      parameters,
    ),
  );
  return ascending(inserted.rows);
}

/** Values bound per event by the statements of prepareSqliteEventInsert: channel_id, user_id, payload, created_at. */
export const SQLITE_EVENT_WIDTH = 4;

/**
 * The raw SQLite INSERT of `rows` events of one type, for a writer running prepared statements on the
 * raw connection inside its own transaction, where the asynchronous appendEvents cannot run; it writes
 * the same columns. Run with SQLITE_EVENT_WIDTH values per event, it answers the new ids in row order
 * (`returning id`). The type, a catalogue constant, is written into the text rather than bound (one
 * value fewer per row to convert); recipient_id is null.
 */
export function prepareSqliteEventInsert(sqlite: NonNullable<Storage['sqlite']>, type: EventType, rows: number) {
  const tuple = `('${type}', ?, ?, null, ?, ?)`;
  return sqlite
    .prepare<Array<string | number | null>, number>(
      `insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at) values ${Array(rows).fill(tuple).join(', ')} returning id`,
    )
    .pluck();
}

/**
 * The new ids in the order of the events: ids are drawn as the rows are inserted, in the order of the
 * VALUES list, while neither database promises to answer RETURNING rows in that order.
 */
function ascending(rows: ReadonlyArray<{ id: number }>): number[] {
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

type NewOutboxRow = Omit<OutboxTable, 'id'>;
type OutboxRow = NewOutboxRow & { id: number };

function parsePayload(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    // A payload that is not JSON cannot come from appendEvents; deliver it as null rather than stall.
    return null;
  }
}

const UNPARSED: unique symbol = Symbol('unparsed');

/**
 * `data` is parsed on first read: the relay and the durable consumers read every event, but most
 * never look at its payload (no socket in the channel, no bot member), and parsing it was a visible
 * share of the message create path's CPU under load. A class rather than an object literal with a
 * getter: V8 gives every such literal its own hidden class (its accessors are fresh closures), which
 * cost about half a microsecond per event, several times per create. `data` lives on the prototype, so
 * `toJSON` puts it back for JSON.stringify; nothing spreads events.
 */
class StoredOutboxEvent {
  readonly id: number;
  readonly type: EventType;
  readonly channelId: string | null;
  readonly userId: string | null;
  readonly recipientId: string | null;
  readonly createdAt: number;
  readonly #payload: string;
  #data: unknown = UNPARSED;

  constructor(id: number, row: NewOutboxRow) {
    this.id = id;
    // Only appendEvents and the message writer (which writes what appendEvents would) fill the
    // outbox, and both take catalogue events only.
    this.type = row.type as EventType;
    this.channelId = row.channel_id;
    this.userId = row.user_id;
    this.recipientId = row.recipient_id;
    this.createdAt = row.created_at;
    this.#payload = row.payload;
  }

  get data(): EventPayloads[EventType] {
    if (this.#data === UNPARSED) this.#data = parsePayload(this.#payload);
    return this.#data as EventPayloads[EventType];
  }

  toJSON() {
    const { id, type, channelId, userId, recipientId, data, createdAt } = this;
    return { id, type, channelId, userId, recipientId, data, createdAt };
  }
}

/** An outbox row as the event it holds (its type tells the shape of its payload, see the class). */
export function toOutboxEvent(row: OutboxRow): OutboxEvent {
  return new StoredOutboxEvent(row.id, row) as OutboxEvent;
}

export async function readEventsAfter(db: Executor, afterId: number, limit: number): Promise<OutboxEvent[]> {
  const rows = await db.selectFrom('outbox').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map(toOutboxEvent);
}

export async function latestEventId(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

/**
 * The message id of a `message.created` payload, as migration 0015 indexes it (`outbox_message_created`):
 * the same expression, character for character, or the database does not use the index. It answers the
 * id's JSON spelling (JSON.stringify without the quotes).
 */
function messageIdOfPayload(dialect: Dialect): RawBuilder<string | null> {
  const position = dialect === 'postgres' ? 'strpos' : 'instr';
  return sql.raw<string | null>(
    `case when ${position}(payload, '","channelId":') > 15 then substr(payload, 15, ${position}(payload, '","channelId":') - 15) end`,
  );
}

/** A `message.created` event as redaction finds it: its id, commit time and message. */
export interface MessageCreatedRef {
  id: number;
  createdAt: number;
  messageId: string;
}

const jsonSpelling = (id: string): string => JSON.stringify(id).slice(1, -1);

/** The `message.created` events of these messages still in the outbox (the outbox_message_created index). */
export async function messageCreatedEvents(db: Executor, messageIds: readonly string[]): Promise<MessageCreatedRef[]> {
  const byJson = new Map(messageIds.map((id) => [jsonSpelling(id), id]));
  const found: MessageCreatedRef[] = [];
  const key = messageIdOfPayload(dialectOf(db));
  for (const chunk of chunks([...byJson.keys()])) {
    // The type as a literal: a partial index is used only when the query's own text implies its condition.
    const rows = await db
      .selectFrom('outbox')
      .select(['id', 'created_at', key.as('message_id')])
      .where('type', '=', sql.lit('message.created'))
      .where(key, 'in', chunk)
      .execute();
    for (const row of rows) {
      const messageId = byJson.get(row.message_id ?? '');
      if (messageId !== undefined) found.push({ id: Number(row.id), createdAt: Number(row.created_at), messageId });
    }
  }
  return found;
}

/** A page of a channel's `message.created` events after an id, in id order (the outbox_channel index). */
export async function channelMessageCreatedEvents(db: Executor, channelId: string, afterId: number, limit: number): Promise<MessageCreatedRef[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'created_at', messageIdOfPayload(dialectOf(db)).as('message_id')])
    .where('channel_id', '=', channelId)
    .where('id', '>', afterId)
    .where('type', '=', 'message.created')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), createdAt: Number(row.created_at), messageId: idOfJsonSpelling(row.message_id) }));
}

/** The id a JSON spelling stands for; '' (no message) for none or a malformed one. */
function idOfJsonSpelling(spelling: string | null): string {
  if (spelling === null) return '';
  try {
    const id: unknown = JSON.parse(`"${spelling}"`);
    return typeof id === 'string' ? id : '';
  } catch {
    return '';
  }
}

/** Rows per CASE update: two values each, well under both databases' limits on bound values. */
const REWRITE_CHUNK = 200;

/**
 * Replaces the payloads of committed events (redaction): one UPDATE per chunk, its payloads chosen by
 * a CASE on the id. Meant for the transaction of the change that makes the old payload wrong.
 */
export async function rewritePayloads(trx: Executor, rewrites: ReadonlyArray<{ id: number; payload: string }>): Promise<void> {
  for (let start = 0; start < rewrites.length; start += REWRITE_CHUNK) {
    const chunk = rewrites.slice(start, start + REWRITE_CHUNK);
    const cases = sql.join(
      chunk.map((rewrite) => sql`when ${rewrite.id} then ${rewrite.payload}`),
      sql` `,
    );
    await sql`update outbox set payload = case id ${cases} end where id in (${sql.join(chunk.map((rewrite) => rewrite.id))})`.execute(trx);
  }
}
