import type { ChannelScope } from '../channels/channels.policy.js';
import { CONVERSATION_TYPE } from '../channels/channels.types.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { MessageReactionsTable } from '../../storage/schema.js';

export type ReactionRow = MessageReactionsTable;

/** What reactions need of a message: where it lives, who wrote it, whether it is gone. */
export interface ReactedMessage {
  id: string;
  channel_id: string;
  user_id: string;
  is_deleted: number;
}

export interface ReactorPageQuery {
  messageId: string;
  /** Only reactions of this name, or all. */
  reactionName: string | null;
  /** Exclusive keyset bounds: a reaction's creation time and id. */
  after: { at: number; id: string } | null;
  before: { at: number; id: string } | null;
  /** Rows to pass over first (only on a first page). */
  skip: number;
  order: 'asc' | 'desc';
  limit: number;
}

/** A reaction change: the message and the reactor's membership read under lock, the reaction row and its count. */
function reactionWrites(db: Executor, dialect: Dialect) {
  return {
    async findMessage(id: string): Promise<ReactedMessage | undefined> {
      return db.selectFrom('messages').select(['id', 'channel_id', 'user_id', 'is_deleted']).where('id', '=', id).executeTakeFirst();
    },

    /**
     * Reads the message and, on PostgreSQL, locks its row until the transaction ends: every reaction
     * change of one message runs after the previous one committed, so the summary rebuilt from the
     * counts is never written from a stale read. (SQLite runs one write transaction at a time anyway.)
     * Only this row is locked here, and appendEvents comes last, so no lock cycle with message writes.
     */
    async lockMessage(id: string): Promise<ReactedMessage | undefined> {
      const select = db.selectFrom('messages').select(['id', 'channel_id', 'user_id', 'is_deleted']).where('id', '=', id);
      return (dialect === 'postgres' ? select.forNoKeyUpdate() : select).executeTakeFirst();
    },

    /**
     * A user's membership of a channel, read under a shared lock of the channel row on PostgreSQL: a
     * ban, removal or close (which lock it for update) runs wholly before or after the caller's
     * transaction, so a reaction written next is judged by the membership at its commit.
     */
    async membershipUnderLock(channelId: string, userId: string): Promise<string | undefined> {
      if (dialect === 'postgres') await db.selectFrom('channels').select('id').where('id', '=', channelId).forShare().execute();
      const row = await db
        .selectFrom('channel_members')
        .select('membership')
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.membership;
    },

    /** Adds a reaction unless the user already has this one on the message; answers whether it was added. */
    async insertReaction(row: ReactionRow): Promise<boolean> {
      const result = await db
        .insertInto('message_reactions')
        .values(row)
        .onConflict((oc) => oc.columns(['message_id', 'user_id', 'reaction_name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async findReaction(messageId: string, userId: string, reactionName: string): Promise<ReactionRow | undefined> {
      return db
        .selectFrom('message_reactions')
        .selectAll()
        .where('message_id', '=', messageId)
        .where('user_id', '=', userId)
        .where('reaction_name', '=', reactionName)
        .executeTakeFirst();
    },

    async deleteReaction(id: string): Promise<boolean> {
      const result = await db.deleteFrom('message_reactions').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Moves one name's count by delta with a single atomic statement; a count that reaches zero goes. */
    async addToCount(messageId: string, reactionName: string, delta: 1 | -1): Promise<void> {
      if (delta === 1) {
        await db
          .insertInto('message_reaction_counts')
          .values({ message_id: messageId, reaction_name: reactionName, reaction_count: 1 })
          .onConflict((oc) =>
            oc.columns(['message_id', 'reaction_name']).doUpdateSet((eb) => ({ reaction_count: eb('message_reaction_counts.reaction_count', '+', 1) })),
          )
          .execute();
        return;
      }
      await db
        .updateTable('message_reaction_counts')
        .set((eb) => ({ reaction_count: eb('reaction_count', '-', 1) }))
        .where('message_id', '=', messageId)
        .where('reaction_name', '=', reactionName)
        .execute();
      await db
        .deleteFrom('message_reaction_counts')
        .where('message_id', '=', messageId)
        .where('reaction_name', '=', reactionName)
        .where('reaction_count', '<=', 0)
        .execute();
    },
  };
}

/** The message's reaction summary, its reactors, and the most reacted messages. */
function summaryQueries(db: Executor) {
  return {
    /** The message's counts by name, in name order. */
    async countsOf(messageId: string): Promise<Array<{ reaction_name: string; reaction_count: number }>> {
      return db
        .selectFrom('message_reaction_counts')
        .select(['reaction_name', 'reaction_count'])
        .where('message_id', '=', messageId)
        .orderBy('reaction_name')
        .execute();
    },

    /**
     * One page of a message's reactions in reaction order (creation time, then id), on the
     * (message_id[, reaction_name], created_at, id) indexes, after or before a keyset position.
     */
    async listReactors(query: ReactorPageQuery): Promise<ReactionRow[]> {
      let select = db.selectFrom('message_reactions').selectAll().where('message_id', '=', query.messageId);
      if (query.reactionName !== null) select = select.where('reaction_name', '=', query.reactionName);
      const beyond = (position: { at: number; id: string }, way: '>' | '<') =>
        select.where((eb) => eb.or([eb('created_at', way, position.at), eb.and([eb('created_at', '=', position.at), eb('id', way, position.id)])]));
      if (query.after !== null) select = beyond(query.after, '>');
      if (query.before !== null) select = beyond(query.before, '<');
      select = select.orderBy('created_at', query.order).orderBy('id', query.order).limit(query.limit);
      return (query.skip > 0 ? select.offset(query.skip) : select).execute();
    },

    /**
     * The live messages with the most reactions of one name, most first, newer first on a tie.
     *
     * Two single-table steps rather than one join, on purpose: given a join, SQLite's planner (once
     * ANALYZE has run) prefers scanning every message and sorting, which is what this must never do.
     * Step one walks the (reaction_name, reaction_count, message_id) index from its high end, a batch
     * at a time; step two drops deleted messages by primary key. Deleted messages are rare among the
     * top rows, so one batch nearly always answers; each further batch resumes after the last row.
     */
    /** The most reacted live messages; `scope` leaves out bots' conversations (channels.policy.ts). */
    async mostReacted(reactionName: string, limit: number, scope: ChannelScope): Promise<Array<{ message_id: string; reaction_count: number }>> {
      const found: Array<{ message_id: string; reaction_count: number }> = [];
      const batchSize = limit + 16;
      let after: { count: number; id: string } | null = null;
      for (;;) {
        let select = db.selectFrom('message_reaction_counts').select(['message_id', 'reaction_count']).where('reaction_name', '=', reactionName);
        if (after !== null) {
          const from = after;
          select = select.where((eb) => eb(eb.refTuple('reaction_count', 'message_id'), '<', eb.tuple(from.count, from.id)));
        }
        const rows = await select.orderBy('reaction_count', 'desc').orderBy('message_id', 'desc').limit(batchSize).execute();
        if (rows.length === 0) return found;
        const ids = rows.map((row) => row.message_id);
        let liveSelect = db.selectFrom('messages').select('id').where('id', 'in', ids).where('is_deleted', '=', 0);
        if (scope === 'withoutConversations') {
          liveSelect = liveSelect.where(({ exists, not, selectFrom }) =>
            not(
              exists(
                selectFrom('channels').select('channels.id').whereRef('channels.id', '=', 'messages.channel_id').where('channels.type', '=', CONVERSATION_TYPE),
              ),
            ),
          );
        }
        const live = new Set((await liveSelect.execute()).map((row) => row.id));
        for (const row of rows) {
          if (!live.has(row.message_id)) continue;
          found.push(row);
          if (found.length === limit) return found;
        }
        if (rows.length < batchSize) return found;
        const last = rows[rows.length - 1] as { message_id: string; reaction_count: number };
        after = { count: last.reaction_count, id: last.message_id };
      }
    },
  };
}

export function createReactionsStore(db: Executor, dialect: Dialect) {
  return { ...reactionWrites(db, dialect), ...summaryQueries(db) };
}

export type ReactionsStore = ReturnType<typeof createReactionsStore>;
