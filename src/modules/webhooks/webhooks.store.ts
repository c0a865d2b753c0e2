import { sql } from 'kysely';
import { chunks } from '../../storage/chunks.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { DeliveryRow } from './webhooks.types.js';

/** Who hears a message: the bot members of its channel, when they joined, and what kind of user wrote it. */
function audienceQueries(db: Executor, dialect: Dialect) {
  return {
    /**
     * Bots with a webhook URL that are members of the channel and not globally banned: the audience of
     * a user's message there, among those who had joined by then (`joinsAfter`). Read through the
     * caller's executor (the consumer's transaction): on SQLite a query on another handle would wait
     * for that transaction forever.
     */
    async botMembersOf(channelId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('channel_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .innerJoin('bots as b', 'b.user_id', 'm.user_id')
        .select('u.id')
        .where('m.channel_id', '=', channelId)
        .where('m.membership', '=', 'member')
        .where('u.kind', '=', 'bot')
        .where('u.is_global_ban', '=', 0)
        .where('b.webhook_url', 'is not', null)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * The `member.added` events of a channel after an event id, as (event id, user ids): outbox ids
     * follow commit order on every instance, which wall clocks of different instances do not.
     */
    async joinsAfter(channelId: string, afterId: number): Promise<Array<{ id: number; userIds: string[] }>> {
      const rows = await db
        .selectFrom('outbox')
        .select(['id', 'payload'])
        .where('channel_id', '=', channelId)
        .where('id', '>', afterId)
        .where('type', '=', 'member.added')
        .execute();
      return rows.map((row) => {
        let userIds: unknown;
        try {
          userIds = (JSON.parse(row.payload) as { userIds?: unknown }).userIds;
        } catch {
          userIds = [];
        }
        return { id: Number(row.id), userIds: Array.isArray(userIds) ? userIds.filter((id): id is string => typeof id === 'string') : [] };
      });
    },

    /**
     * Which of these messages are deleted. On PostgreSQL their rows are share-locked until the caller's
     * transaction ends, in id order: a delete (which updates the row) waits for it, and this waits for
     * a delete in progress and then reads the row as the delete left it.
     */
    async deletedMessageIds(messageIds: readonly string[]): Promise<Set<string>> {
      const deleted = new Set<string>();
      const locking = dialect === 'postgres' ? sql` for share` : sql``;
      for (const chunk of chunks([...new Set(messageIds)].sort())) {
        const result = await sql<{
          id: string;
          is_deleted: number;
        }>`select id, is_deleted from messages where id in (${sql.join(chunk)}) order by id${locking}`.execute(db);
        for (const row of result.rows) if (Number(row.is_deleted) === 1) deleted.add(row.id);
      }
      return deleted;
    },

    async kindOf(userId: string): Promise<string | undefined> {
      return (await db.selectFrom('users').select('kind').where('id', '=', userId).executeTakeFirst())?.kind;
    },

    /** Once per bot and event, whatever the number of times the consumer sees the event. */
  };
}

/** Deliveries: scheduled, claimed for an attempt, and marked with how it went. */
function deliveryQueries(db: Executor, dialect: Dialect) {
  return {
    async schedule(rows: DeliveryRow[]): Promise<void> {
      if (rows.length === 0) return;
      await db
        .insertInto('webhook_deliveries')
        .values(rows)
        .onConflict((oc) => oc.columns(['bot_user_id', 'event_id']).doNothing())
        .execute();
    },

    /**
     * Claims due deliveries by pushing their next attempt out by a lease, so another instance (or
     * this one's next tick) does not send them meanwhile. SKIP LOCKED lets instances share the work.
     */
    async claimDue(now: number, leaseMs: number, limit: number): Promise<DeliveryRow[]> {
      const locking = dialect === 'postgres' ? sql` for update skip locked` : sql``;
      const result = await sql<DeliveryRow>`
        update webhook_deliveries set next_attempt_at = ${now + leaseMs}
        where id in (
          select id from webhook_deliveries
          where delivered_at is null and gave_up_at is null and next_attempt_at <= ${now}
          order by next_attempt_at limit ${limit}${locking}
        )
        returning *`.execute(db);
      return result.rows.map((row) => ({
        ...row,
        event_id: Number(row.event_id),
        next_attempt_at: Number(row.next_attempt_at),
        created_at: Number(row.created_at),
      }));
    },

    async markDelivered(id: string, attempts: number, now: number): Promise<void> {
      await db.updateTable('webhook_deliveries').set({ delivered_at: now, attempts, last_error: null }).where('id', '=', id).execute();
    },

    async markFailed(id: string, attempts: number, error: string, nextAttemptAt: number | null, now: number): Promise<void> {
      await db
        .updateTable('webhook_deliveries')
        .set(nextAttemptAt === null ? { attempts, last_error: error, gave_up_at: now } : { attempts, last_error: error, next_attempt_at: nextAttemptAt })
        .where('id', '=', id)
        .execute();
    },

    async listFor(botUserId: string): Promise<DeliveryRow[]> {
      return db.selectFrom('webhook_deliveries').selectAll().where('bot_user_id', '=', botUserId).orderBy('event_id').execute();
    },

    /** The newest deliveries of a bot (the unique (bot, event) index walks them), or null for no such bot. */
    async newestFor(botUserId: string, limit: number): Promise<DeliveryRow[] | null> {
      const bot = await db.selectFrom('bots').select('user_id').where('user_id', '=', botUserId).executeTakeFirst();
      if (!bot) return null;
      return db.selectFrom('webhook_deliveries').selectAll().where('bot_user_id', '=', botUserId).orderBy('event_id', 'desc').limit(limit).execute();
    },
  };
}

/** Rows per CASE update of bodies: two values each. */
const REDACT_CHUNK = 200;

/** The deliveries of events whose message was deleted: their bodies rewritten, the undelivered ones given up. */
function redactionQueries(db: Executor) {
  return {
    /** Replaces the body of every delivery of these events (one body per event, whichever bot). */
    async rewriteBodies(bodies: ReadonlyArray<{ eventId: number; body: string }>): Promise<void> {
      for (let start = 0; start < bodies.length; start += REDACT_CHUNK) {
        const chunk = bodies.slice(start, start + REDACT_CHUNK);
        const cases = sql.join(
          chunk.map((item) => sql`when ${item.eventId} then ${item.body}`),
          sql` `,
        );
        await sql`update webhook_deliveries set body = case event_id ${cases} end where event_id in (${sql.join(chunk.map((item) => item.eventId))})`.execute(
          db,
        );
      }
    },

    /** Gives up the deliveries of these events that were not made yet: what they would send is gone. */
    async cancelUndelivered(eventIds: readonly number[], reason: string, now: number): Promise<void> {
      for (const chunk of chunks(eventIds)) {
        await db
          .updateTable('webhook_deliveries')
          .set({ gave_up_at: now, last_error: reason })
          .where('event_id', 'in', chunk)
          .where('delivered_at', 'is', null)
          .where('gave_up_at', 'is', null)
          .execute();
      }
    },
  };
}

export function createWebhooksStore(db: Executor, dialect: Dialect) {
  return { ...audienceQueries(db, dialect), ...deliveryQueries(db, dialect), ...redactionQueries(db) };
}

export type WebhooksStore = ReturnType<typeof createWebhooksStore>;
