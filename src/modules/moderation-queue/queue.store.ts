import type { ChannelScope } from '../channels/channels.policy.js';
import { type RawBuilder, sql } from 'kysely';
import type { KeysetCursor } from '../../shared/keyset.js';
import type { Executor } from '../../storage/database.js';
import { CONVERSATION_TYPE } from '../channels/channels.types.js';
import type { MessageRow } from '../messages/messages.present.js';
import type { UserRow } from '../users/users.types.js';
import type { FlagEntry, NamedFlag, ReviewRow, TargetType } from './queue.types.js';

/** One flagged target of the open queue: its id, how many flags it has and the newest one's time. */
export interface FlaggedTarget {
  id: string;
  flagCount: number;
  lastAt: number;
}

/** The flags of each target the queue lists at most (the newest); flagCount counts them all. */
export const FLAGS_SHOWN = 100;

/** Which flagged messages an actor sees: all, or none of a bot's conversation (channels.policy.ts). */
type ConversationScope = ChannelScope;

/** True unless `channelId` names a bot's conversation (null, a user review's channel, names none). */
const notInConversation = (channelId: RawBuilder<unknown>) =>
  sql<boolean>`not exists (select 1 from channels c where c.id = ${channelId} and c.type = ${CONVERSATION_TYPE})`;

/** Where each kind of flag is kept, and which flags are open: those of live messages (in the scope), of any user. */
function flagSource(type: TargetType, scope: ConversationScope): { table: RawBuilder<unknown>; key: RawBuilder<unknown>; open: RawBuilder<unknown> } {
  if (type === 'user') return { table: sql`user_flags f`, key: sql.ref('f.target_user_id'), open: sql`` };
  const visible = scope === 'all' ? sql`` : sql`and ${notInConversation(sql.ref('m.channel_id'))}`;
  return {
    table: sql`message_flags f join messages m on m.id = f.message_id`,
    key: sql.ref('f.message_id'),
    open: sql`where m.is_deleted = 0 ${visible}`,
  };
}

const flagEntryOf = (row: { flagger_id: string; reason: string | null; created_at: number | string }): FlagEntry => ({
  userId: row.flagger_id,
  reason: row.reason,
  createdAt: Number(row.created_at),
});

/** The comparison of a keyset page: after the cursor in its direction, on (time, id). */
function keysetCondition(time: RawBuilder<unknown>, id: RawBuilder<unknown>, cursor: KeysetCursor): RawBuilder<boolean> {
  const way = cursor.older ? sql`<` : sql`>`;
  return sql<boolean>`(${time} ${way} ${cursor.at} or (${time} = ${cursor.at} and ${id} ${way} ${cursor.id}))`;
}

/** Reads of the open queue: flagged targets newest flag first, their flags and the rows they name. */
function openQueueQueries(db: Executor) {
  return {
    /** One page of flagged targets, newest flag first; `limit + 1` rows, so the caller knows whether more follow. */
    async flaggedPage(type: TargetType, scope: ConversationScope, limit: number, cursor: KeysetCursor | null): Promise<FlaggedTarget[]> {
      const { table, key, open } = flagSource(type, scope);
      const lastAt = sql`max(f.created_at)`;
      const having = cursor === null ? sql`` : sql`having ${keysetCondition(lastAt, key, cursor)}`;
      const newer = cursor !== null && !cursor.older;
      const order = newer ? sql`${lastAt} asc, ${key} asc` : sql`${lastAt} desc, ${key} desc`;
      const result = await sql<{ id: string; flag_count: number | string; last_at: number | string }>`
        select ${key} as id, count(*) as flag_count, ${lastAt} as last_at
        from ${table} ${open} group by ${key} ${having} order by ${order} limit ${limit + 1}`.execute(db);
      const rows = result.rows.map((row) => ({ id: row.id, flagCount: Number(row.flag_count), lastAt: Number(row.last_at) }));
      return newer ? rows.reverse() : rows;
    },

    /** The newest flags of each target (at most FLAGS_SHOWN each), newest first, with the flaggers' names ('' for none). */
    async flagsOf(type: TargetType, ids: readonly string[]): Promise<Map<string, NamedFlag[]>> {
      const byTarget = new Map<string, NamedFlag[]>();
      if (ids.length === 0) return byTarget;
      const [table, key] = type === 'message' ? [sql`message_flags`, sql.ref('message_id')] : [sql`user_flags`, sql.ref('target_user_id')];
      const result = await sql<{ target: string; flagger_id: string; reason: string | null; created_at: number | string; display_name: string | null }>`
        select x.target, x.flagger_id, x.reason, x.created_at, u.display_name from (
          select ${key} as target, flagger_id, reason, created_at,
            row_number() over (partition by ${key} order by created_at desc, flagger_id asc) as flag_rank
          from ${table} where ${key} in (${sql.join(ids)})
        ) x left join users u on u.id = x.flagger_id
        where x.flag_rank <= ${FLAGS_SHOWN} order by x.target, x.created_at desc, x.flagger_id asc`.execute(db);
      for (const row of result.rows) {
        const list = byTarget.get(row.target) ?? [];
        list.push({ ...flagEntryOf(row), displayName: row.display_name ?? '' });
        byTarget.set(row.target, list);
      }
      return byTarget;
    },

    async messageById(id: string): Promise<MessageRow | undefined> {
      return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async messagesByIds(ids: readonly string[]): Promise<MessageRow[]> {
      return ids.length === 0 ? [] : db.selectFrom('messages').selectAll().where('id', 'in', ids).execute();
    },

    async channelNames(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('channels').select(['id', 'display_name']).where('id', 'in', ids).execute();
      return new Map(rows.map((row) => [row.id, row.display_name ?? '']));
    },

    async usersByIds(ids: readonly string[]): Promise<UserRow[]> {
      return ids.length === 0 ? [] : db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
    },

    /** How many targets of a kind have open flags, and the newest open flag's time. */
    async openCount(type: TargetType, scope: ConversationScope): Promise<{ count: number; latest: number | null }> {
      const { table, key, open } = flagSource(type, scope);
      const result = await sql<{ open_count: number | string; latest: number | string | null }>`
        select count(distinct ${key}) as open_count, max(f.created_at) as latest from ${table} ${open}`.execute(db);
      const row = result.rows[0];
      return { count: Number(row?.open_count ?? 0), latest: row?.latest === null || row?.latest === undefined ? null : Number(row.latest) };
    },

    async isConversation(channelId: string): Promise<boolean> {
      const row = await db.selectFrom('channels').select('type').where('id', '=', channelId).executeTakeFirst();
      return row?.type === CONVERSATION_TYPE;
    },

    async hasFlags(type: TargetType, id: string): Promise<boolean> {
      const found =
        type === 'message'
          ? await db.selectFrom('message_flags').select('flagger_id').where('message_id', '=', id).limit(1).executeTakeFirst()
          : await db.selectFrom('user_flags').select('flagger_id').where('target_user_id', '=', id).limit(1).executeTakeFirst();
      return found !== undefined;
    },
  };
}

/**
 * The review's clearing of flags, in its transaction: the flagged row first (its lock orders the clear
 * with a concurrent flag, which inserts its row and then increments the count, as users.store's
 * clearFlags explains), then the flags read as they are and deleted. Answers the flags cleared.
 */
function clearingQueries(db: Executor) {
  return {
    async clearMessageFlags(messageId: string): Promise<FlagEntry[]> {
      await db.updateTable('messages').set({ flag_count: 0 }).where('id', '=', messageId).execute();
      const rows = await db
        .selectFrom('message_flags')
        .select(['flagger_id', 'reason', 'created_at'])
        .where('message_id', '=', messageId)
        .orderBy('created_at', 'desc')
        .orderBy('flagger_id')
        .execute();
      await db.deleteFrom('message_flags').where('message_id', '=', messageId).execute();
      return rows.map(flagEntryOf);
    },

    async clearUserFlags(userId: string, now: number): Promise<FlagEntry[]> {
      await db.updateTable('users').set({ flag_count: 0, updated_at: now }).where('id', '=', userId).execute();
      const rows = await db
        .selectFrom('user_flags')
        .select(['flagger_id', 'reason', 'created_at'])
        .where('target_user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('flagger_id')
        .execute();
      await db.deleteFrom('user_flags').where('target_user_id', '=', userId).execute();
      return rows.map(flagEntryOf);
    },
  };
}

/** Review records: written once, listed newest first. */
function reviewQueries(db: Executor) {
  const asRow = (row: ReviewRow): ReviewRow => ({
    ...row,
    created_at: Number(row.created_at),
    author_action_minutes: row.author_action_minutes === null ? null : Number(row.author_action_minutes),
  });
  return {
    async insertReview(row: ReviewRow): Promise<void> {
      await db.insertInto('moderation_reviews').values(row).execute();
    },

    /** Newest first by (created_at, id), of one target type or both, in the scope; `limit + 1` rows. */
    async reviewsPage(type: TargetType | null, scope: ConversationScope, limit: number, cursor: KeysetCursor | null): Promise<ReviewRow[]> {
      let select = db.selectFrom('moderation_reviews').selectAll();
      if (type !== null) select = select.where('target_type', '=', type);
      if (scope === 'withoutConversations') select = select.where(notInConversation(sql.ref('moderation_reviews.channel_id')));
      if (cursor !== null) select = select.where(keysetCondition(sql.ref('created_at'), sql.ref('id'), cursor));
      const newer = cursor !== null && !cursor.older;
      const way = newer ? 'asc' : 'desc';
      const rows = (
        await select
          .orderBy('created_at', way)
          .orderBy('id', way)
          .limit(limit + 1)
          .execute()
      ).map(asRow);
      return newer ? rows.reverse() : rows;
    },
  };
}

export function createQueueStore(db: Executor) {
  return { ...openQueueQueries(db), ...clearingQueries(db), ...reviewQueries(db) };
}

export type QueueStore = ReturnType<typeof createQueueStore>;
