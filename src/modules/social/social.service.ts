import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import { AppError, notFound } from '../../http/errors.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { parseCounts } from '../channels/channels.present.js';
import { createUsersStore } from '../users/users.store.js';
import type { ActivityActor, ActivityPost, SocialEventData, SocialEventType } from './social.events.js';
import { presentComment, presentPost, presentPostReaction } from './social.present.js';
import { type CommentRow, type CommunityRow, createSocialStore, type PostReactionRow, type PostRow, type SocialStore } from './social.store.js';

export interface SocialActor {
  userId: string;
}

/**
 * The moderation seam for post and comment text and post reaction names: a guard refuses by throwing
 * an AppError. It sees the text, the writer and the field to name (relative to the body); app.ts adapts
 * the message text guards to it.
 */
export type PostTextGuard = (text: string, actor: SocialActor, field: string) => void | Promise<void>;

export const MAX_POST_TEXT_LENGTH = 20_000;

export function createSocialService(deps: { db: Executor; dialect: Dialect; clock: Clock; textGuards?: readonly PostTextGuard[] }) {
  const { db, dialect, clock } = deps;
  const textGuards = deps.textGuards ?? [];
  const social = createSocialStore(db, dialect);

  /**
   * Every social write takes the activity clock first. On PostgreSQL the clock's row stays locked
   * until commit, so social writes run one at a time and their activity times follow commit order.
   * Taking it first is what keeps them from deadlocking: a write that locked a post or a community
   * before the clock could wait for the clock's holder while that holder waits for the post (a
   * comment adding to the counter of a post another write is reacting to, or a post's foreign key
   * to a community someone is joining).
   */
  function inTransaction<T>(now: number, work: (store: SocialStore, trx: Executor, at: number) => Promise<T>): Promise<T> {
    return runTransaction(db, async (trx) => {
      const store = createSocialStore(trx, dialect);
      const at = await store.nextActivityTime(now);
      return work(store, trx, at);
    });
  }

  async function checkText(actor: SocialActor, text: string): Promise<void> {
    if (text.trim() === '') {
      throw new AppError('parameters', 'body.text must not be empty.', { detail: [{ field: 'body.text', message: 'must not be empty' }] });
    }
    // Schema maxLength counts code points already; this guards direct service callers.
    if (text.length > MAX_POST_TEXT_LENGTH && [...text].length > MAX_POST_TEXT_LENGTH) {
      throw new AppError('parameters', `body.text must be at most ${MAX_POST_TEXT_LENGTH} characters.`, {
        detail: [{ field: 'body.text', message: `must be at most ${MAX_POST_TEXT_LENGTH} characters` }],
      });
    }
    for (const guard of textGuards) await guard(text, actor, 'text');
  }

  /** The actor as the tray will show them: the name and avatar they have now, at the event. */
  async function activityActorOf(trx: Executor, userId: string): Promise<ActivityActor> {
    const user = await createUsersStore(trx).findById(userId);
    // A removal whose author was deleted meanwhile still names them by id.
    if (!user) return { id: userId, name: userId, avatarId: null };
    return { id: user.id, name: user.display_name !== null && user.display_name !== '' ? user.display_name : user.id, avatarId: user.avatar };
  }

  async function requireMember(store: SocialStore, communityId: string, userId: string): Promise<CommunityRow> {
    const community = await store.findCommunity(communityId);
    if (!community) throw notFound('Community');
    if (!(await store.isMember(communityId, userId))) throw new AppError('permissionDenied', 'Not a member of the community.');
    return community;
  }

  /** A live post the actor may act on: community posts need the actor to be a member now. */
  async function reachablePost(store: SocialStore, postId: string, userId: string, lock = false): Promise<{ post: PostRow; about: ActivityPost }> {
    const post = lock ? await store.lockPost(postId) : await store.findPost(postId);
    if (!post || post.is_deleted === 1) throw notFound('Post');
    let communityName: string | null = null;
    if (post.community_id !== null) communityName = (await requireMember(store, post.community_id, userId)).display_name;
    return { post, about: { postId: post.id, authorId: post.author_id, communityId: post.community_id, communityName } };
  }

  async function emit(trx: Executor, type: SocialEventType, data: SocialEventData, now: number): Promise<void> {
    await appendEvents(trx, [{ type, userId: data.actor.id, data }], now);
  }

  return {
    async createCommunity(actor: SocialActor, input: { communityId?: string | undefined; displayName: string }): Promise<{ community: CommunityRow; isMember: boolean }> {
      const now = clock.now();
      return inTransaction(now, async (store, _trx, at) => {
        const id = input.communityId ?? newObjectId(now);
        const created = await store.insertCommunity({ id, display_name: input.displayName, created_by: actor.userId, member_count: 1, created_at: now, updated_at: now });
        if (!created) throw new AppError('alreadyExists', `Community ${id} already exists.`);
        await store.openStint(id, actor.userId, at);
        const community = await store.findCommunity(id);
        if (!community) throw new AppError('unexpected');
        return { community, isMember: true };
      });
    },

    /** Joining twice is harmless: the open stint stays as it is. */
    async join(actor: SocialActor, communityId: string): Promise<{ community: CommunityRow; isMember: boolean }> {
      const now = clock.now();
      return inTransaction(now, async (store, _trx, at) => {
        const community = await store.lockCommunity(communityId);
        if (!community) throw notFound('Community');
        if (!(await store.isMember(communityId, actor.userId))) {
          await store.openStint(communityId, actor.userId, at);
          await store.addToMemberCount(communityId, 1, now);
        }
        const current = await store.findCommunity(communityId);
        if (!current) throw new AppError('unexpected');
        return { community: current, isMember: true };
      });
    },

    /** Leaving ends the open stint; the tray stops showing the community's posts from that moment. */
    async leave(actor: SocialActor, communityId: string): Promise<{ community: CommunityRow; isMember: boolean }> {
      const now = clock.now();
      return inTransaction(now, async (store, _trx, at) => {
        const community = await store.lockCommunity(communityId);
        if (!community) throw notFound('Community');
        if (await store.isMember(communityId, actor.userId)) {
          await store.closeStint(communityId, actor.userId, at);
          await store.addToMemberCount(communityId, -1, now);
        }
        const current = await store.findCommunity(communityId);
        if (!current) throw new AppError('unexpected');
        return { community: current, isMember: false };
      });
    },

    /**
     * A post in a community (the author must be a member) or on the author's own feed. Constant work
     * whatever the community's size: the tray merges community posts into members' trays at read time.
     */
    async createPost(actor: SocialActor, input: { communityId?: string | undefined; text: string }): Promise<PostRow> {
      await checkText(actor, input.text);
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const community = input.communityId === undefined ? null : await requireMember(store, input.communityId, actor.userId);
        const who = await activityActorOf(trx, actor.userId);
        const row: PostRow = {
          id: newObjectId(now),
          community_id: community?.id ?? null,
          author_id: actor.userId,
          text: input.text,
          comments_count: 0,
          reactions: '{}',
          is_deleted: 0,
          created_at: at,
          updated_at: at,
        };
        await store.insertPost(row);
        const about: ActivityPost = { postId: row.id, authorId: actor.userId, communityId: row.community_id, communityName: community?.display_name ?? null };
        await emit(trx, 'post.created', { at, actor: who, post: about, sourceId: row.id, record: presentPost(row) }, now);
        return row;
      });
    },

    /** The author deletes their post: a removal event for the tray. */
    async deletePost(actor: SocialActor, postId: string): Promise<PostRow> {
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const post = await store.lockPost(postId);
        if (!post || post.is_deleted === 1) throw notFound('Post');
        if (post.author_id !== actor.userId) throw new AppError('permissionDenied', 'Only the author can delete a post.');
        await store.updatePost(postId, { is_deleted: 1, updated_at: at });
        const community = post.community_id === null ? null : await store.findCommunity(post.community_id);
        const about: ActivityPost = { postId, authorId: post.author_id, communityId: post.community_id, communityName: community?.display_name ?? null };
        await emit(trx, 'post.deleted', { at, actor: await activityActorOf(trx, actor.userId), post: about, sourceId: postId }, now);
        return { ...post, is_deleted: 1, updated_at: at };
      });
    },

    async createComment(actor: SocialActor, postId: string, input: { text: string; parentId?: string | undefined }): Promise<CommentRow> {
      await checkText(actor, input.text);
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const { about } = await reachablePost(store, postId, actor.userId);
        if (input.parentId !== undefined) {
          const parent = await store.findComment(input.parentId);
          if (!parent || parent.post_id !== postId || parent.is_deleted === 1) throw notFound('Comment');
        }
        const who = await activityActorOf(trx, actor.userId);
        const row: CommentRow = {
          id: newObjectId(now),
          post_id: postId,
          author_id: actor.userId,
          parent_id: input.parentId ?? null,
          text: input.text,
          is_deleted: 0,
          created_at: at,
          updated_at: at,
        };
        await store.insertComment(row);
        await store.addToCommentsCount(postId, 1);
        await emit(trx, 'comment.created', { at, actor: who, post: about, sourceId: row.id, parentId: row.parent_id, record: presentComment(row) }, now);
        return row;
      });
    },

    /** The comment's author or the post's author may delete a comment; the tray removes the author's part. */
    async deleteComment(actor: SocialActor, commentId: string): Promise<CommentRow> {
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const comment = await store.findComment(commentId);
        if (!comment || comment.is_deleted === 1) throw notFound('Comment');
        const post = await store.findPost(comment.post_id);
        if (!post) throw notFound('Post');
        if (comment.author_id !== actor.userId && post.author_id !== actor.userId) {
          throw new AppError('permissionDenied', "Only the comment's author or the post's author can delete a comment.");
        }
        if (!(await store.markCommentDeleted(commentId, now))) throw notFound('Comment');
        await store.addToCommentsCount(post.id, -1);
        const community = post.community_id === null ? null : await store.findCommunity(post.community_id);
        const about: ActivityPost = { postId: post.id, authorId: post.author_id, communityId: post.community_id, communityName: community?.display_name ?? null };
        // The removal concerns the comment author's contribution, whoever deletes it.
        await emit(trx, 'comment.deleted', { at, actor: await activityActorOf(trx, comment.author_id), post: about, sourceId: commentId, parentId: comment.parent_id }, now);
        return { ...comment, is_deleted: 1, updated_at: now };
      });
    },

    /** Adding a reaction the user already has changes nothing and answers the existing one. */
    async addReaction(actor: SocialActor, postId: string, reactionName: string): Promise<PostReactionRow> {
      // Others see the name in the post's reactions, so it passes the text guards like a text.
      for (const guard of textGuards) await guard(reactionName, actor, 'reactionName');
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const { post, about } = await reachablePost(store, postId, actor.userId, true);
        const existing = await store.findReaction(postId, actor.userId, reactionName);
        if (existing) return existing;
        const who = await activityActorOf(trx, actor.userId);
        const row: PostReactionRow = { id: newObjectId(now), post_id: postId, user_id: actor.userId, reaction_name: reactionName, created_at: at };
        if (!(await store.insertReaction(row))) throw new AppError('conflict', 'The reaction changed meanwhile; try again.');
        const counts = parseCounts(post.reactions);
        counts[reactionName] = (counts[reactionName] ?? 0) + 1;
        await store.updatePost(postId, { reactions: JSON.stringify(counts) });
        await emit(trx, 'post.reaction.added', { at, actor: who, post: about, sourceId: row.id, reactionName, record: presentPostReaction(row) }, now);
        return row;
      });
    },

    async removeReaction(actor: SocialActor, postId: string, reactionName: string): Promise<PostReactionRow> {
      const now = clock.now();
      return inTransaction(now, async (store, trx, at) => {
        const post = await store.lockPost(postId);
        if (!post || post.is_deleted === 1) throw notFound('Post');
        const existing = await store.findReaction(postId, actor.userId, reactionName);
        if (!existing) throw notFound('Reaction');
        await store.deleteReaction(existing.id);
        const counts = parseCounts(post.reactions);
        const left = (counts[reactionName] ?? 1) - 1;
        if (left > 0) counts[reactionName] = left;
        else delete counts[reactionName];
        await store.updatePost(postId, { reactions: JSON.stringify(counts) });
        const community = post.community_id === null ? null : await store.findCommunity(post.community_id);
        const about: ActivityPost = { postId, authorId: post.author_id, communityId: post.community_id, communityName: community?.display_name ?? null };
        await emit(trx, 'post.reaction.removed', { at, actor: await activityActorOf(trx, actor.userId), post: about, sourceId: existing.id, reactionName }, now);
        return existing;
      });
    },

    async isMember(communityId: string, userId: string): Promise<boolean> {
      return social.isMember(communityId, userId);
    },

    /** For the tray: the user's membership stints that matter since `since`. */
    intervalsOf(userId: string, since: number) {
      return social.intervalsOf(userId, since);
    },
  };
}

export type SocialService = ReturnType<typeof createSocialService>;
