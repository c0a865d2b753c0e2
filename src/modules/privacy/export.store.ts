import type { Executor } from '../../storage/database.js';

/**
 * The queries of a user's export (GDPR article 20): each a keyset page of what the user wrote or did in
 * another module's table, in key order after a position. No module's service lists these by user, so
 * the queries live here; they only read.
 */
export function createExportStore(db: Executor) {
  return {
    messages(userId: string, after: string, limit: number) {
      return db.selectFrom('messages').selectAll().where('user_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    messageReactions(userId: string, after: string, limit: number) {
      return db.selectFrom('message_reactions').selectAll().where('user_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    posts(userId: string, after: string, limit: number) {
      return db.selectFrom('posts').selectAll().where('author_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    comments(userId: string, after: string, limit: number) {
      return db.selectFrom('comments').selectAll().where('author_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    postReactions(userId: string, after: string, limit: number) {
      return db.selectFrom('post_reactions').selectAll().where('user_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit).execute();
    },

    channelMemberships(userId: string, after: string, limit: number) {
      return db
        .selectFrom('channel_members')
        .select(['channel_id', 'membership', 'roles', 'mute_until', 'read_to_segment', 'created_at'])
        .where('user_id', '=', userId)
        .where('channel_id', '>', after)
        .orderBy('channel_id')
        .limit(limit)
        .execute();
    },

    /** Stints in (community, joined) order: a user may have left and joined one community many times. */
    communityStints(userId: string, after: { communityId: string; joinedAt: number }, limit: number) {
      return db
        .selectFrom('community_members')
        .select(['community_id', 'joined_at', 'left_at'])
        .where('user_id', '=', userId)
        .where((eb) =>
          eb.or([eb('community_id', '>', after.communityId), eb.and([eb('community_id', '=', after.communityId), eb('joined_at', '>', after.joinedAt)])]),
        )
        .orderBy('community_id')
        .orderBy('joined_at')
        .limit(limit)
        .execute();
    },

    messageFlags(userId: string, after: string, limit: number) {
      return db
        .selectFrom('message_flags')
        .select(['message_id', 'reason', 'created_at'])
        .where('flagger_id', '=', userId)
        .where('message_id', '>', after)
        .orderBy('message_id')
        .limit(limit)
        .execute();
    },

    userFlags(userId: string, after: string, limit: number) {
      return db
        .selectFrom('user_flags')
        .select(['target_user_id', 'reason', 'created_at'])
        .where('flagger_id', '=', userId)
        .where('target_user_id', '>', after)
        .orderBy('target_user_id')
        .limit(limit)
        .execute();
    },

    /** Reviews of the moderation queue about the user: of them as a flagged user, or of a message they wrote. */
    moderationReviews(userId: string, after: string, limit: number) {
      return db
        .selectFrom('moderation_reviews')
        .selectAll()
        .where((eb) => eb.or([eb.and([eb('target_type', '=', 'user'), eb('target_id', '=', userId)]), eb('message_user_id', '=', userId)]))
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    trayRecords(userId: string, after: number, limit: number) {
      return db
        .selectFrom('tray_records')
        .select(['id', 'verb', 'target_id', 'target_type', 'window_start', 'last_update', 'community_id', 'community_name', 'actors_count'])
        .where('owner_key', '=', `u:${userId}`)
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .execute();
    },
  };
}

export type ExportStore = ReturnType<typeof createExportStore>;
