import { type Expression, type ExpressionBuilder, type SqlBool, sql, type Updateable } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { Database, ModerationReviewsTable } from '../../storage/schema.js';

/**
 * The queries of a user's erasure that no other module's service offers: finding what a user left in
 * other modules' tables (to hand to those modules' services) and clearing what no service removes
 * (texts kept by soft deletes, flags raised, tray rows, names copied into others' tray records).
 * Every query works on a bounded batch, so no transaction grows with the user's history.
 */
export function createErasureStore(db: Executor) {
  return {
    ...lookups(db),
    ...clearing(db),
    ...trayClearing(db),
    ...reviewClearing(db),
  };
}

export type ErasureStore = ReturnType<typeof createErasureStore>;

/** A LIKE pattern for text holding `fragment`, its wildcards taken literally (with an explicit ESCAPE, for both databases). */
const likePatternOf = (fragment: string): string => `%${fragment.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** What the user still has, a batch at a time, for the services that remove it. */
function lookups(db: Executor) {
  return {
    messageReactions(userId: string, limit: number) {
      return db
        .selectFrom('message_reactions')
        .select(['id', 'message_id', 'reaction_name'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    postReactions(userId: string, limit: number) {
      return db.selectFrom('post_reactions').select(['id', 'post_id', 'reaction_name']).where('user_id', '=', userId).orderBy('id').limit(limit).execute();
    },

    async liveComments(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('comments')
        .select('id')
        .where('author_id', '=', userId)
        .where('is_deleted', '=', 0)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    async livePosts(userId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('posts').select('id').where('author_id', '=', userId).where('is_deleted', '=', 0).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    async liveMessages(userId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('messages').select('id').where('user_id', '=', userId).where('is_deleted', '=', 0).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    /**
     * Up to `limit` ids of the user's messages above `afterId`, in id order. No index leads from an
     * author to their messages: this walks the primary key upwards from `afterId`, filtering by author.
     */
    async messagesOf(userId: string, afterId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('messages').select('id').where('id', '>', afterId).where('user_id', '=', userId).orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    /** Channels where the user is a member (not banned): the channels service removes them and counts. */
    async memberChannels(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('channel_members')
        .select('channel_id')
        .where('user_id', '=', userId)
        .where('membership', '=', 'member')
        .orderBy('channel_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.channel_id);
    },

    async currentCommunities(userId: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('community_members')
        .select('community_id')
        .where('user_id', '=', userId)
        .where('left_at', 'is', null)
        .orderBy('community_id')
        .limit(limit)
        .execute();
      return rows.map((row) => row.community_id);
    },

    async avatarIds(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('avatars').select('id').where('user_id', '=', userId).execute();
      return rows.map((row) => row.id);
    },

    /** The user's outbox events (by acting user) after an id, in id order. */
    outboxEvents(userId: string, afterId: number, limit: number) {
      return db
        .selectFrom('outbox')
        .select(['id', 'type', 'payload', 'created_at'])
        .where('user_id', '=', userId)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute();
    },
  };
}

/** Removals and rewrites no module's service offers. */
function clearing(db: Executor) {
  return {
    /** A reaction on a message already deleted: no event concerns anyone, the row and its count go. */
    async deleteMessageReaction(id: string, messageId: string, name: string): Promise<void> {
      const removed = await db.deleteFrom('message_reactions').where('id', '=', id).executeTakeFirst();
      if (Number(removed.numDeletedRows) === 0) return;
      await db
        .updateTable('message_reaction_counts')
        .set((eb) => ({ reaction_count: eb('reaction_count', '-', 1) }))
        .where('message_id', '=', messageId)
        .where('reaction_name', '=', name)
        .execute();
      await db
        .deleteFrom('message_reaction_counts')
        .where('message_id', '=', messageId)
        .where('reaction_name', '=', name)
        .where('reaction_count', '<=', 0)
        .execute();
    },

    async deletePostReaction(id: string): Promise<void> {
      await db.deleteFrom('post_reactions').where('id', '=', id).execute();
    },

    /** Soft-deleted posts and comments keep their rows (counts, threads); their text goes. */
    async blankTexts(userId: string): Promise<void> {
      await db.updateTable('posts').set({ text: '' }).where('author_id', '=', userId).where('text', '!=', '').execute();
      await db.updateTable('comments').set({ text: '' }).where('author_id', '=', userId).where('text', '!=', '').execute();
    },

    /** The flags the user raised on messages and users, with the flagged rows' counts lowered. */
    async deleteFlagsBy(userId: string, limit: number): Promise<number> {
      const messageFlags = await db.selectFrom('message_flags').select('message_id').where('flagger_id', '=', userId).limit(limit).execute();
      for (const { message_id } of messageFlags) {
        await db.deleteFrom('message_flags').where('message_id', '=', message_id).where('flagger_id', '=', userId).execute();
        await db
          .updateTable('messages')
          .set((eb) => ({ flag_count: eb('flag_count', '-', 1) }))
          .where('id', '=', message_id)
          .where('flag_count', '>', 0)
          .execute();
      }
      const userFlags = await db.selectFrom('user_flags').select('target_user_id').where('flagger_id', '=', userId).limit(limit).execute();
      for (const { target_user_id } of userFlags) {
        await db.deleteFrom('user_flags').where('target_user_id', '=', target_user_id).where('flagger_id', '=', userId).execute();
        await db
          .updateTable('users')
          .set((eb) => ({ flag_count: eb('flag_count', '-', 1) }))
          .where('id', '=', target_user_id)
          .where('flag_count', '>', 0)
          .execute();
      }
      return messageFlags.length + userFlags.length;
    },

    async reassignMessages(ids: readonly string[], placeholder: string): Promise<void> {
      if (ids.length > 0) await db.updateTable('messages').set({ user_id: placeholder }).where('id', 'in', ids).execute();
    },

    async rewriteOutboxEvent(id: number, payload: string, placeholder: string): Promise<void> {
      await db.updateTable('outbox').set({ payload, user_id: placeholder }).where('id', '=', id).execute();
    },

    /** Ban rows (kept by bans and closes) and former community stints: no count includes them. */
    async deleteMembershipLeftovers(userId: string, placeholder: string): Promise<void> {
      await db.deleteFrom('channel_members').where('user_id', '=', userId).execute();
      await db.deleteFrom('community_members').where('user_id', '=', userId).execute();
      await db.updateTable('communities').set({ created_by: placeholder }).where('created_by', '=', userId).execute();
    },

    /**
     * The profile emptied in place (the row goes last, see erasure.service.ts), with the sign-in
     * throttle's rows that name the account by its sign-in name (identity/throttle.ts's key).
     */
    async scrubProfile(userId: string, now: number): Promise<void> {
      const row = await db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
      if (row?.username)
        await db
          .deleteFrom('login_failures')
          .where('throttle_key', '=', `account:${row.username.trim().toLowerCase().slice(0, 150)}`)
          .execute();
      await db
        .updateTable('users')
        .set({
          display_name: null,
          username: null,
          password_hash: null,
          firstname: null,
          lastname: null,
          email: null,
          position: null,
          status: null,
          metadata: '{}',
          extras: '{}',
          avatar: null,
          updated_at: now,
        })
        .where('id', '=', userId)
        .execute();
    },

    async deleteChannelMember(channelId: string, userId: string): Promise<void> {
      await db.deleteFrom('channel_members').where('channel_id', '=', channelId).where('user_id', '=', userId).execute();
    },

    /** The scheduled lifts of the user's timed bans (modules/bans): there is no one left to lift them for. */
    async deleteBanLifts(userId: string): Promise<void> {
      await db.deleteFrom('ban_lifts').where('user_id', '=', userId).execute();
    },

    async deleteAvatars(userId: string): Promise<void> {
      await db.deleteFrom('avatars').where('user_id', '=', userId).execute();
    },

    async deleteUser(userId: string): Promise<void> {
      await db.deleteFrom('users').where('id', '=', userId).execute();
    },
  };
}

/** The tray: the user's own records, and their name and avatar in records of others. */
function trayClearing(db: Executor) {
  return {
    async deleteOwnTray(userId: string): Promise<void> {
      const owned = db.selectFrom('tray_records').select('id').where('owner_key', '=', `u:${userId}`);
      await db.deleteFrom('tray_actors').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_contributions').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_reads').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_records').where('owner_key', '=', `u:${userId}`).execute();
      await db.deleteFrom('tray_reads').where('user_id', '=', userId).execute();
      await db.deleteFrom('tray_state').where('user_id', '=', userId).execute();
    },

    /** Records of others where the user still appears as an actor: the name and avatar they showed go. */
    async anonymiseTrayActor(userId: string, placeholderName: string): Promise<void> {
      await db.updateTable('tray_actors').set({ name: placeholderName, avatar_id: null }).where('actor_id', '=', userId).execute();
      await db.updateTable('tray_contributions').set({ name: placeholderName, avatar_id: null }).where('actor_id', '=', userId).execute();
      // The id as JSON spells it.
      const pattern = likePatternOf(JSON.stringify(userId));
      const records = await db.selectFrom('tray_records').select(['id', 'actors']).where(sql<boolean>`actors like ${pattern} escape '\\'`).execute();
      for (const record of records) {
        const actors = JSON.parse(record.actors) as Array<{ id: string; name: string; avatarId?: string | null }>;
        const rewritten = actors.map((actor) => (actor.id === userId ? { ...actor, name: placeholderName, avatarId: null } : actor));
        await db
          .updateTable('tray_records')
          .set({ actors: JSON.stringify(rewritten) })
          .where('id', '=', record.id)
          .execute();
      }
    },
  };
}

/** Which reviews a batch rewrites. */
type ReviewFilter = (eb: ExpressionBuilder<Database, 'moderation_reviews'>) => Expression<SqlBool>;

/** One flag of a review's snapshot, as moderation-queue writes it: `{userId, reason, createdAt}`. */
interface SnapshotFlag {
  userId?: unknown;
}

/**
 * The moderation queue's reviews (moderation_reviews), which keep ids and texts as they were when
 * reviewed: the user as author of a reviewed message, as a reviewed user, as reviewer, and their
 * entries in the flags snapshots. A batch of rows at a time.
 */
function reviewClearing(db: Executor) {
  /** Applies `changes` to a batch of the reviews `filter` picks; answers how many. */
  async function rewriteBatch(filter: ReviewFilter, changes: Updateable<ModerationReviewsTable>, limit: number): Promise<number> {
    const rows = await db.selectFrom('moderation_reviews').select('id').where(filter).limit(limit).execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    await db.updateTable('moderation_reviews').set(changes).where('id', 'in', ids).execute();
    return rows.length;
  }

  return {
    /**
     * Reviews of the user's messages name the placeholder as author; `dropText` also removes the
     * text kept of the message (delete mode).
     */
    anonymiseReviewedAuthor(userId: string, placeholder: string, dropText: boolean, limit: number): Promise<number> {
      const changes = { message_user_id: placeholder, ...(dropText ? { message_text: null } : {}) };
      return rewriteBatch((eb) => eb('message_user_id', '=', userId), changes, limit);
    },

    /** Reviews of the user (as a flagged user) name the placeholder. */
    anonymiseReviewedUser(userId: string, placeholder: string, limit: number): Promise<number> {
      return rewriteBatch((eb) => eb.and([eb('target_type', '=', 'user'), eb('target_id', '=', userId)]), { target_id: placeholder }, limit);
    },

    /** Reviews the user made from the console name the placeholder as reviewer. */
    anonymiseReviewer(userId: string, placeholder: string, limit: number): Promise<number> {
      return rewriteBatch((eb) => eb.and([eb('reviewer_kind', '=', 'user'), eb('reviewer_id', '=', userId)]), { reviewer_id: placeholder }, limit);
    },

    /**
     * The user's entries leave the flags snapshots, as their open flags are deleted: a batch of the
     * reviews whose snapshot names them, in id order after `afterId`. Answers the last id looked at,
     * or null when none is left.
     */
    async dropSnapshotFlags(userId: string, afterId: string, limit: number): Promise<string | null> {
      const pattern = likePatternOf(`"userId":${JSON.stringify(userId)}`);
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
