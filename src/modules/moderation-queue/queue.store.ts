import type { ChannelScope } from '../channels/channels.policy.js';
import { type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, sql, type Updateable } from 'kysely';
import type { KeysetCursor } from '../../shared/keyset.js';
import type { Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { CONVERSATION_TYPE } from '../channels/channels.types.js';
import type { MessageRow } from '../messages/messages.present.js';
import type { UserRow } from '../users/users.types.js';
import type { FlagEntry, NamedFlag, ReviewRow, TargetType } from './queue.types.js';
import { containingPattern } from '../../storage/like-pattern.js';

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

/** What narrows the open messages: their channel, and a flag by a reporter and/or with a reason holding a text. Null: any. */
export interface OpenMessageFilters {
  channelId: string | null;
  reporter: string | null;
  reason: string | null;
}

export const ANY_OPEN_MESSAGE: OpenMessageFilters = { channelId: null, reporter: null, reason: null };

/**
 * The conditions the filters add to the open messages' WHERE. A reporter and a reason are asked of the
 * same flag; the message's count and newest flag stay those of all its flags.
 */
function openMessageNarrowing(filters: OpenMessageFilters): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filters.channelId !== null) parts.push(sql`and m.channel_id = ${filters.channelId}`);
  const flag: RawBuilder<unknown>[] = [];
  if (filters.reporter !== null) flag.push(sql`r.flagger_id = ${filters.reporter}`);
  if (filters.reason !== null) flag.push(sql`lower(r.reason) like ${containingPattern(filters.reason.toLowerCase())} escape '\\'`);
  if (flag.length > 0) parts.push(sql`and exists (select 1 from message_flags r where r.message_id = f.message_id and ${sql.join(flag, sql` and `)})`);
  return parts.length === 0 ? sql`` : sql.join(parts, sql` `);
}

/** Reads of the open queue: flagged targets newest flag first, their flags and the rows they name. */
function openQueueQueries(db: Executor) {
  return {
    /** One page of flagged targets, newest flag first; `limit + 1` rows, so the caller knows whether more follow. */
    async flaggedPage(
      type: TargetType,
      scope: ConversationScope,
      limit: number,
      cursor: KeysetCursor | null,
      filters: OpenMessageFilters = ANY_OPEN_MESSAGE,
    ): Promise<FlaggedTarget[]> {
      const { table, key, open } = flagSource(type, scope);
      const narrowing = type === 'message' ? openMessageNarrowing(filters) : sql``;
      const lastAt = sql`max(f.created_at)`;
      const having = cursor === null ? sql`` : sql`having ${keysetCondition(lastAt, key, cursor)}`;
      const newer = cursor !== null && !cursor.older;
      const order = newer ? sql`${lastAt} asc, ${key} asc` : sql`${lastAt} desc, ${key} desc`;
      const result = await sql<{ id: string; flag_count: number | string; last_at: number | string }>`
        select ${key} as id, count(*) as flag_count, ${lastAt} as last_at
        from ${table} ${open} ${narrowing} group by ${key} ${having} order by ${order} limit ${limit + 1}`.execute(db);
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
  return { ...openQueueQueries(db), ...reviewQueries(db) };
}

export type QueueStore = ReturnType<typeof createQueueStore>;

/** Which reviews a batch rewrites. */
type ReviewFilter = (eb: ExpressionBuilder<Database, 'moderation_reviews'>) => Expression<SqlBool>;

/** One flag of a review's snapshot, as flagsSnapshotOf writes it: `{userId, reason, createdAt}`. */
interface SnapshotFlag {
  userId?: unknown;
}

/**
 * Review records keep ids and texts as they were when reviewed; these take one person out of them, a
 * bounded batch of rows at a time, so no transaction grows with the number of reviews.
 */
export function createReviewRewrites(db: Executor) {
  /** Applies `changes` to a batch of the reviews `filter` picks; answers how many. */
  async function rewriteBatch(filter: ReviewFilter, changes: Updateable<ReviewRow>, limit: number): Promise<number> {
    const rows = await db.selectFrom('moderation_reviews').select('id').where(filter).limit(limit).execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    await db.updateTable('moderation_reviews').set(changes).where('id', 'in', ids).execute();
    return rows.length;
  }

  return {
    /** Reviews of the user's messages name `placeholder` as author; `dropText` also removes the text kept of the message. */
    replaceReviewedAuthor(userId: string, placeholder: string, dropText: boolean, limit: number): Promise<number> {
      const changes = { message_user_id: placeholder, ...(dropText ? { message_text: null } : {}) };
      return rewriteBatch((eb) => eb('message_user_id', '=', userId), changes, limit);
    },

    /** Reviews of the user (as a flagged user) name `placeholder`. */
    replaceReviewedUser(userId: string, placeholder: string, limit: number): Promise<number> {
      return rewriteBatch((eb) => eb.and([eb('target_type', '=', 'user'), eb('target_id', '=', userId)]), { target_id: placeholder }, limit);
    },

    /** Reviews the user made from the console name `placeholder` as reviewer. */
    replaceReviewer(userId: string, placeholder: string, limit: number): Promise<number> {
      return rewriteBatch((eb) => eb.and([eb('reviewer_kind', '=', 'user'), eb('reviewer_id', '=', userId)]), { reviewer_id: placeholder }, limit);
    },

    /**
     * The user's entries leave the flags snapshots: a batch of the reviews whose snapshot names them, in
     * id order after `afterId`. Answers the last id looked at, or null when none is left.
     */
    async dropSnapshotFlags(userId: string, afterId: string, limit: number): Promise<string | null> {
      const pattern = containingPattern(`"userId":${JSON.stringify(userId)}`);
      const rows = await db
        .selectFrom('moderation_reviews')
        .select(['id', 'flags'])
        .where('id', '>', afterId)
        .where(sql<boolean>`flags like ${pattern} escape '\\'`)
        .orderBy('id')
        .limit(limit)
        .execute();
      for (const row of rows) {
        const flags: unknown = JSON.parse(row.flags);
        if (!Array.isArray(flags)) continue;
        const kept = (flags as SnapshotFlag[]).filter((flag) => flag?.userId !== userId);
        if (kept.length !== flags.length)
          await db
            .updateTable('moderation_reviews')
            .set({ flags: JSON.stringify(kept) })
            .where('id', '=', row.id)
            .execute();
      }
      return rows.length === 0 ? null : (rows[rows.length - 1]?.id ?? null);
    },
  };
}
