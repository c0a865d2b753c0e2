import { sql } from 'kysely';
import type { Dialect, Executor } from '../../storage/database.js';
import type { CommentsTable, CommunitiesTable, CommunityMembersTable, PostReactionsTable, PostsTable } from '../../storage/schema.js';
import type { MembershipInterval } from './social.types.js';

export type CommunityRow = CommunitiesTable;
export type MembershipRow = CommunityMembersTable;
export type PostRow = PostsTable;
export type CommentRow = CommentsTable;
export type PostReactionRow = PostReactionsTable;

/** The activity clock, communities and their membership stints, and the actor a social write names. */
function communityQueries(db: Executor, dialect: Dialect) {
  return {
    /**
     * The next activity time: max(now, last + 1), so no two social writes share a millisecond. On
     * PostgreSQL the row stays locked until commit, so activity times also follow commit order.
     */
    async nextActivityTime(now: number): Promise<number> {
      const row = await db
        .updateTable('activity_clock')
        .set({ last_ms: sql<number>`case when last_ms + 1 > ${now} then last_ms + 1 else ${now} end` })
        .where('name', '=', 'social')
        .returning('last_ms')
        .executeTakeFirstOrThrow();
      return Number(row.last_ms);
    },

    async insertCommunity(row: CommunityRow): Promise<boolean> {
      const result = await db
        .insertInto('communities')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async findCommunity(id: string): Promise<CommunityRow | undefined> {
      return db.selectFrom('communities').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Reads and, on PostgreSQL, locks the community row, so joins and leaves of one community run in turn. */
    async lockCommunity(id: string): Promise<CommunityRow | undefined> {
      const select = db.selectFrom('communities').selectAll().where('id', '=', id);
      return (dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
    },

    async addToMemberCount(id: string, delta: number, now: number): Promise<void> {
      if (delta === 0) return;
      await db
        .updateTable('communities')
        .set((eb) => ({ member_count: eb('member_count', '+', delta), updated_at: now }))
        .where('id', '=', id)
        .execute();
    },

    async isMember(communityId: string, userId: string): Promise<boolean> {
      const row = await db
        .selectFrom('community_members')
        .select('joined_at')
        .where('community_id', '=', communityId)
        .where('user_id', '=', userId)
        .where('left_at', 'is', null)
        .executeTakeFirst();
      return row !== undefined;
    },

    async openStint(communityId: string, userId: string, joinedAt: number): Promise<void> {
      await db.insertInto('community_members').values({ community_id: communityId, user_id: userId, joined_at: joinedAt, left_at: null }).execute();
    },

    /** Ends the open stint; answers whether there was one. */
    async closeStint(communityId: string, userId: string, leftAt: number): Promise<boolean> {
      const result = await db
        .updateTable('community_members')
        .set({ left_at: leftAt })
        .where('community_id', '=', communityId)
        .where('user_id', '=', userId)
        .where('left_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** The name and avatar a user has at the time of a social write, for the activity it records. */
    async findActor(userId: string): Promise<{ id: string; display_name: string | null; avatar: string | null } | undefined> {
      return db.selectFrom('users').select(['id', 'display_name', 'avatar']).where('id', '=', userId).executeTakeFirst();
    },

    /** The user's stints that could still matter to a tray read (ended after `since`, or open); tray.sqlite.ts reads the same rows. */
    async intervalsOf(userId: string, since: number): Promise<MembershipInterval[]> {
      const rows = await db
        .selectFrom('community_members')
        .select(['community_id', 'joined_at', 'left_at'])
        .where('user_id', '=', userId)
        .where((eb) => eb.or([eb('left_at', 'is', null), eb('left_at', '>=', since)]))
        .execute();
      return rows.map((row) => ({ communityId: row.community_id, joinedAt: Number(row.joined_at), leftAt: row.left_at === null ? null : Number(row.left_at) }));
    },

    /** Every stint of the user, open or ended, with no count changed. */
    async deleteStintsOf(userId: string): Promise<void> {
      await db.deleteFrom('community_members').where('user_id', '=', userId).execute();
    },

    /** The communities `userId` created name `creatorId` as their creator. */
    async reassignCreator(userId: string, creatorId: string): Promise<void> {
      await db.updateTable('communities').set({ created_by: creatorId }).where('created_by', '=', userId).execute();
    },
  };
}

/** Posts, their comments and their reactions. */
function postQueries(db: Executor, dialect: Dialect) {
  return {
    async insertPost(row: PostRow): Promise<void> {
      await db.insertInto('posts').values(row).execute();
    },

    async findPost(id: string): Promise<PostRow | undefined> {
      return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Reads and, on PostgreSQL, locks a post (its counters change under concurrent reactions). */
    async lockPost(id: string): Promise<PostRow | undefined> {
      const select = db.selectFrom('posts').selectAll().where('id', '=', id);
      return (dialect === 'postgres' ? select.forUpdate() : select).executeTakeFirst();
    },

    async updatePost(id: string, changes: Partial<Pick<PostRow, 'is_deleted' | 'reactions' | 'updated_at'>>): Promise<void> {
      await db.updateTable('posts').set(changes).where('id', '=', id).execute();
    },

    async addToCommentsCount(postId: string, delta: number): Promise<void> {
      await db
        .updateTable('posts')
        .set((eb) => ({ comments_count: eb('comments_count', '+', delta) }))
        .where('id', '=', postId)
        .execute();
    },

    async insertComment(row: CommentRow): Promise<void> {
      await db.insertInto('comments').values(row).execute();
    },

    async findComment(id: string): Promise<CommentRow | undefined> {
      return db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async markCommentDeleted(id: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('comments')
        .set({ is_deleted: 1, updated_at: now })
        .where('id', '=', id)
        .where('is_deleted', '=', 0)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Adds a reaction unless the user already has it; answers whether it was added. */
    async insertReaction(row: PostReactionRow): Promise<boolean> {
      const result = await db
        .insertInto('post_reactions')
        .values(row)
        .onConflict((oc) => oc.columns(['post_id', 'user_id', 'reaction_name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async findReaction(postId: string, userId: string, reactionName: string): Promise<PostReactionRow | undefined> {
      return db
        .selectFrom('post_reactions')
        .selectAll()
        .where('post_id', '=', postId)
        .where('user_id', '=', userId)
        .where('reaction_name', '=', reactionName)
        .executeTakeFirst();
    },

    async deleteReaction(id: string): Promise<void> {
      await db.deleteFrom('post_reactions').where('id', '=', id).execute();
    },

    /** Empties the texts of the author's posts and comments, their rows (counts, threads) kept. */
    async blankTextsOf(authorId: string): Promise<void> {
      await db.updateTable('posts').set({ text: '' }).where('author_id', '=', authorId).where('text', '!=', '').execute();
      await db.updateTable('comments').set({ text: '' }).where('author_id', '=', authorId).where('text', '!=', '').execute();
    },
  };
}

export function createSocialStore(db: Executor, dialect: Dialect) {
  return { ...communityQueries(db, dialect), ...postQueries(db, dialect) };
}

export type SocialStore = ReturnType<typeof createSocialStore>;
