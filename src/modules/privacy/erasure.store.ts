import { sql } from 'kysely';
import type { Executor } from '../../storage/database.js';

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
  };
}

export type ErasureStore = ReturnType<typeof createErasureStore>;

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

    async messagesOf(userId: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('messages').select('id').where('user_id', '=', userId).orderBy('id').limit(limit).execute();
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
      // The id as JSON spells it, LIKE's wildcards taken literally (an explicit ESCAPE for both databases).
      const pattern = `%${JSON.stringify(userId).replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
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
