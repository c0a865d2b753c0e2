import type { ChannelScope } from './channels.policy.js';
import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Dialect, Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { UserRow } from '../users/users.types.js';
import { CONVERSATION_TYPE, type ChannelRow, type MemberRow } from './channels.types.js';

export { CONVERSATION_TYPE, type ChannelRow, type MemberRow } from './channels.types.js';

/** A position in the channel list: newest first, ties broken by id. */
export interface ChannelCursor {
  createdAt: number;
  id: string;
}

export interface ChannelListQuery {
  /** Only channels where each of these users is (true) or is not (false) a member. */
  memberships: Array<{ userId: string; isMember: boolean }>;
  anyTags: string[];
  excludeTags: string[];
  /** Whether bots' conversations are listed (channels.policy.ts). */
  scope: ChannelScope;
  limit: number;
  skip: number;
  after: ChannelCursor | null;
  before: ChannelCursor | null;
}

type ChannelSelect = SelectQueryBuilder<Database, 'channels', ChannelRow>;

function isMemberOf(userId: string) {
  return (eb: ExpressionBuilder<Database, 'channels'>) =>
    eb.exists(
      eb
        .selectFrom('channel_members')
        .select(sql`1`.as('one'))
        .whereRef('channel_members.channel_id', '=', 'channels.id')
        .where('channel_members.user_id', '=', userId)
        .where('channel_members.membership', '=', 'member'),
    );
}

function hasAnyTag(tags: string[]) {
  return (eb: ExpressionBuilder<Database, 'channels'>) =>
    eb.exists(
      eb.selectFrom('channel_tags').select(sql`1`.as('one')).whereRef('channel_tags.channel_id', '=', 'channels.id').where('channel_tags.tag', 'in', tags),
    );
}

function filtered(db: Executor, query: ChannelListQuery): ChannelSelect {
  let select: ChannelSelect = db.selectFrom('channels').selectAll();
  for (const { userId, isMember } of query.memberships) {
    const member = isMemberOf(userId);
    select = isMember ? select.where(member) : select.where((eb) => eb.not(member(eb)));
  }
  if (query.scope === 'withoutConversations') select = select.where('type', '<>', CONVERSATION_TYPE);
  if (query.anyTags.length > 0) select = select.where(hasAnyTag(query.anyTags));
  if (query.excludeTags.length > 0) {
    const excluded = hasAnyTag(query.excludeTags);
    select = select.where((eb) => eb.not(excluded(eb)));
  }
  return select;
}

/** New rows of channel_members with this membership, no roles, no mute, nothing read. */
function memberRows(channelId: string, userIds: readonly string[], membership: 'member' | 'banned', now: number): MemberRow[] {
  return userIds.map((userId) => ({
    channel_id: channelId,
    user_id: userId,
    membership,
    roles: '[]',
    mute_until: null,
    read_to_segment: 0,
    last_activity: null,
    created_at: now,
    updated_at: now,
  }));
}

/** The channels table: one row per channel, its tags, its list. */
function channelQueries(db: Executor, dialect: Dialect) {
  return {
    async insert(row: ChannelRow): Promise<boolean> {
      const result = await db
        .insertInto('channels')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async findById(id: string): Promise<ChannelRow | undefined> {
      return db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /**
     * Reads the channel and, on PostgreSQL, locks its row until the transaction ends, so membership
     * changes and close on one channel run one after another. SQLite transactions are serial already.
     */
    async lockById(id: string): Promise<ChannelRow | undefined> {
      const select = db.selectFrom('channels').selectAll().where('id', '=', id);
      return (dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
    },

    /** Which of these user ids name an existing user. */
    async existingUserIds(userIds: readonly string[]): Promise<Set<string>> {
      if (userIds.length === 0) return new Set();
      return new Set((await db.selectFrom('users').select('id').where('id', 'in', userIds).execute()).map((row) => row.id));
    },

    async replaceTags(channelId: string, tags: string[]): Promise<void> {
      await db.deleteFrom('channel_tags').where('channel_id', '=', channelId).execute();
      if (tags.length > 0) {
        await db
          .insertInto('channel_tags')
          .values([...new Set(tags)].map((tag) => ({ channel_id: channelId, tag })))
          .execute();
      }
    },

    /** limit + 1 rows of one page, newest first, so the caller can tell whether more exist. */
    async listPage(query: ChannelListQuery): Promise<ChannelRow[]> {
      let select = filtered(db, query);
      if (query.before) {
        const { createdAt, id } = query.before;
        const rows = await select
          .where((eb) => eb.or([eb('created_at', '>', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '>', id)])]))
          .orderBy('created_at', 'asc')
          .orderBy('id', 'asc')
          .limit(query.limit + 1)
          .execute();
        return rows.reverse();
      }
      if (query.after) {
        const { createdAt, id } = query.after;
        select = select.where((eb) => eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]));
      }
      select = select
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit + 1);
      if (query.skip > 0 && !query.after) select = select.offset(query.skip);
      return select.execute();
    },

    async update(id: string, changes: Partial<Omit<ChannelRow, 'id'>>): Promise<void> {
      await db.updateTable('channels').set(changes).where('id', '=', id).execute();
    },

    /** Live messages come and go (deletes, in the messages module's transaction); `updated_at` stays. */
    async addToMessageCount(id: string, delta: number): Promise<void> {
      await db
        .updateTable('channels')
        .set((eb) => ({ message_count: eb('message_count', '+', delta) }))
        .where('id', '=', id)
        .execute();
    },

    async addToMemberCount(id: string, delta: number, now: number): Promise<void> {
      if (delta === 0) return;
      await db
        .updateTable('channels')
        .set((eb) => ({ member_count: eb('member_count', '+', delta), updated_at: now }))
        .where('id', '=', id)
        .execute();
    },
  };
}

/** The channel_members table: who is a member of a channel or banned from it. */
function memberQueries(db: Executor) {
  return {
    async findMember(channelId: string, userId: string): Promise<MemberRow | undefined> {
      return db.selectFrom('channel_members').selectAll().where('channel_id', '=', channelId).where('user_id', '=', userId).executeTakeFirst();
    },

    async findMembers(channelId: string, userIds: readonly string[]): Promise<MemberRow[]> {
      if (userIds.length === 0) return [];
      return db.selectFrom('channel_members').selectAll().where('channel_id', '=', channelId).where('user_id', 'in', userIds).execute();
    },

    /** The rows of one user in several channels: the channelUser of a channel list. */
    async findMembershipsOf(userId: string, channelIds: readonly string[]): Promise<MemberRow[]> {
      if (channelIds.length === 0) return [];
      return db.selectFrom('channel_members').selectAll().where('user_id', '=', userId).where('channel_id', 'in', channelIds).execute();
    },

    /** Inserts member rows that do not exist yet; answers how many were inserted. */
    async insertMembers(channelId: string, userIds: readonly string[], now: number): Promise<number> {
      if (userIds.length === 0) return 0;
      const result = await db
        .insertInto('channel_members')
        .values(memberRows(channelId, userIds, 'member', now))
        .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    },

    /** Deletes rows of the given membership; answers how many went. */
    async deleteMembers(channelId: string, userIds: readonly string[], membership: 'member' | 'banned'): Promise<number> {
      if (userIds.length === 0) return 0;
      const result = await db
        .deleteFrom('channel_members')
        .where('channel_id', '=', channelId)
        .where('user_id', 'in', userIds)
        .where('membership', '=', membership)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deletes every member row (bans stay); answers the user ids that were members. */
    async deleteAllMembers(channelId: string): Promise<string[]> {
      const rows = await db.deleteFrom('channel_members').where('channel_id', '=', channelId).where('membership', '=', 'member').returning('user_id').execute();
      return rows.map((row) => row.user_id);
    },

    /** Turns members into banned rows; answers how many members were converted. */
    async convertMembersToBanned(channelId: string, userIds: readonly string[], now: number): Promise<number> {
      if (userIds.length === 0) return 0;
      const result = await db
        .updateTable('channel_members')
        .set({ membership: 'banned', mute_until: null, updated_at: now })
        .where('channel_id', '=', channelId)
        .where('user_id', 'in', userIds)
        .where('membership', '=', 'member')
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async insertBanned(channelId: string, userIds: readonly string[], now: number): Promise<void> {
      if (userIds.length === 0) return;
      await db
        .insertInto('channel_members')
        .values(memberRows(channelId, userIds, 'banned', now))
        .onConflict((oc) => oc.columns(['channel_id', 'user_id']).doNothing())
        .execute();
    },

    /**
     * A page of the channel's rows (members and banned), by user id; `after` / `before` a user id.
     * One row more than `limit`, so the caller knows whether more follow. Going back, read in reverse.
     */
    async listMembersPage(channelId: string, page: { after: string | null; before: string | null; limit: number }): Promise<MemberRow[]> {
      let query = db.selectFrom('channel_members').selectAll().where('channel_id', '=', channelId);
      if (page.after !== null) query = query.where('user_id', '>', page.after);
      if (page.before !== null) query = query.where('user_id', '<', page.before);
      const rows = await query
        .orderBy('user_id', page.before !== null ? 'desc' : 'asc')
        .limit(page.limit + 1)
        .execute();
      return page.before !== null ? rows.reverse() : rows;
    },

    /** The users' rows, for the people beside a member list. */
    async findUsers(userIds: readonly string[]): Promise<UserRow[]> {
      if (userIds.length === 0) return [];
      return db.selectFrom('users').selectAll().where('id', 'in', userIds).execute();
    },

    /** Moves the member's read marker forward only; answers the marker in place, null for a non-member. */
    async advanceReadMarker(channelId: string, userId: string, segment: number, now: number): Promise<number | null> {
      await db
        .updateTable('channel_members')
        .set({ read_to_segment: segment, updated_at: now })
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        .where('membership', '=', 'member')
        .where('read_to_segment', '<', segment)
        .execute();
      const row = await db
        .selectFrom('channel_members')
        .select('read_to_segment')
        .where('channel_id', '=', channelId)
        .where('user_id', '=', userId)
        .where('membership', '=', 'member')
        .executeTakeFirst();
      return row?.read_to_segment ?? null;
    },

    async setMembersMute(channelId: string, userIds: readonly string[], muteUntil: number | null, now: number): Promise<void> {
      await db
        .updateTable('channel_members')
        .set({ mute_until: muteUntil, updated_at: now })
        .where('channel_id', '=', channelId)
        .where('user_id', 'in', userIds)
        .where('membership', '=', 'member')
        .execute();
    },

    /** The user's row in the channel, member or banned, with no count changed and no event. */
    async deleteMemberRow(channelId: string, userId: string): Promise<void> {
      await db.deleteFrom('channel_members').where('channel_id', '=', channelId).where('user_id', '=', userId).execute();
    },

    /** Every row of the user in every channel, member or banned, with no count changed and no event. */
    async deleteRowsOf(userId: string): Promise<void> {
      await db.deleteFrom('channel_members').where('user_id', '=', userId).execute();
    },
  };
}

export function createChannelsStore(db: Executor, dialect: Dialect) {
  return { ...channelQueries(db, dialect), ...memberQueries(db) };
}

export type ChannelsStore = ReturnType<typeof createChannelsStore>;
