import { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from '../storage/database.js';
import { valuesList } from '../storage/values-list.js';
import type { OutboxTable } from '../storage/schema.js';

/**
 * A domain event, written to the outbox inside the transaction of the change it describes, so an
 * event exists exactly when its change committed. Consumers (real time, webhooks, the tray) read
 * the outbox after commit; see docs/architecture.md.
 */
interface EventAddress {
  /** e.g. `message.created`, `reaction.added`, `member.added` */
  type: string;
  /** The channel whose members may see it, when there is one. */
  channelId?: string | null;
  /** The acting user, when there is one. */
  userId?: string | null;
  /** The one user the event is for, when it is for one user only. */
  recipientId?: string | null;
}

export type DomainEvent = EventAddress &
  (
    | {
        /** Public JSON, already shaped by the module's presenter. */
        data: unknown;
      }
    | {
        /** The same, already serialized by the presenter (the message create path): written as is. */
        json: string;
      }
  );

/** The outbox payload column of an event. */
export function payloadOf(event: DomainEvent): string {
  return 'json' in event ? event.json : JSON.stringify(event.data ?? null);
}

/** An event as read back from the outbox. */
export interface OutboxEvent {
  id: number;
  type: string;
  channelId: string | null;
  userId: string | null;
  recipientId: string | null;
  data: unknown;
  createdAt: number;
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
  if (dialectOf(trx) === 'postgres') {
    const parameters: unknown[] = [OUTBOX_LOCK_KEY];
    for (const event of events) {
      parameters.push(event.type, event.channelId ?? null, event.userId ?? null, event.recipientId ?? null, payloadOf(event), now);
    }
    const inserted = await trx.executeQuery<{ id: number }>(
      CompiledQuery.raw(
        `insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at)
         select event.type, event.channel_id, event.user_id, event.recipient_id, event.payload, event.created_at
         from (select pg_advisory_xact_lock($1)) as outbox_lock,
           (values ${valuesList(events.length, 6, 2, EVENT_CASTS)}) as event (type, channel_id, user_id, recipient_id, payload, created_at)
         returning id`,
        parameters,
      ),
    );
    return ascending(inserted.rows);
  }
  const inserted = await trx
    .insertInto('outbox')
    .values(
      events.map((event) => ({
        type: event.type,
        channel_id: event.channelId ?? null,
        user_id: event.userId ?? null,
        recipient_id: event.recipientId ?? null,
        payload: payloadOf(event),
        created_at: now,
      })),
    )
    .returning('id')
    .execute();
  return ascending(inserted);
}

/**
 * The new ids in the order of the events: ids are drawn as the rows are inserted, in the order of the
 * VALUES list, while neither database promises to answer RETURNING rows in that order.
 */
function ascending(rows: ReadonlyArray<{ id: number }>): number[] {
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

type OutboxRow = Omit<OutboxTable, 'id'> & { id: number };

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
class StoredOutboxEvent implements OutboxEvent {
  readonly id: number;
  readonly type: string;
  readonly channelId: string | null;
  readonly userId: string | null;
  readonly recipientId: string | null;
  readonly createdAt: number;
  readonly #payload: string;
  #data: unknown = UNPARSED;

  constructor(row: OutboxRow) {
    this.id = row.id;
    this.type = row.type;
    this.channelId = row.channel_id;
    this.userId = row.user_id;
    this.recipientId = row.recipient_id;
    this.createdAt = row.created_at;
    this.#payload = row.payload;
  }

  get data(): unknown {
    if (this.#data === UNPARSED) this.#data = parsePayload(this.#payload);
    return this.#data;
  }

  toJSON(): OutboxEvent {
    const { id, type, channelId, userId, recipientId, data, createdAt } = this;
    return { id, type, channelId, userId, recipientId, data, createdAt };
  }
}

export function toOutboxEvent(row: OutboxRow): OutboxEvent {
  return new StoredOutboxEvent(row);
}

export async function readEventsAfter(db: Executor, afterId: number, limit: number): Promise<OutboxEvent[]> {
  const rows = await db.selectFrom('outbox').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map(toOutboxEvent);
}

export async function latestEventId(db: Executor): Promise<number> {
  const row = await db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
  return Number(row?.max ?? 0);
}
