import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { parseCounts } from '../channels/channels.present.js';
import type { ActivityActor, ActivityPost, SocialEventData, SocialEventType } from './social.events.js';
import { presentComment, presentPost, presentPostReaction } from './social.present.js';
import type { CommentRow, CommunityRow, PostReactionRow, PostRow, SocialStore } from './social.store.js';

export interface SocialActor {
  userId: string;
}

/**
 * The moderation seam for post and comment text, post reaction names and community names and ids: a
 * guard refuses by throwing an AppError. It sees the text, the writer and the field to name (relative
 * to the body); container.ts adapts the message text guards to it.
 */
export type PostTextGuard = (text: string, actor: SocialActor, field: string) => void | Promise<void>;

/** What the social actions share: the clock, the activity-clock transaction and the text checks. */
export interface SocialContext {
  clock: Clock;
  /** One transaction that took the activity clock first; `at` is the write's activity time. */
  inTransaction<T>(now: number, work: (store: SocialStore, trx: Executor, at: number) => Promise<T>): Promise<T>;
  /** A post or comment text: not blank, not too long, passed by the text guards. */
  checkText(actor: SocialActor, text: string): Promise<void>;
  textGuards: readonly PostTextGuard[];
}

/** The actor as the tray will show them: the name and avatar they have now, at the event. */
async function activityActorOf(store: SocialStore, userId: string): Promise<ActivityActor> {
  const user = await store.findActor(userId);
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

/** The post as an activity names it, with its community's name now. */
async function aboutPost(store: SocialStore, post: PostRow): Promise<ActivityPost> {
  const community = post.community_id === null ? null : await store.findCommunity(post.community_id);
  return { postId: post.id, authorId: post.author_id, communityId: post.community_id, communityName: community?.display_name ?? null };
}

/** Posts and comments: writing and deleting them, each with its activity event for the tray. */
export function createPostActions(ctx: SocialContext) {
  return {
    /**
     * A post in a community (the author must be a member) or on the author's own feed. Constant work
     * whatever the community's size: the tray merges community posts into members' trays at read time.
     */
    async createPost(actor: SocialActor, input: { communityId?: string | undefined; text: string }): Promise<PostRow> {
      await ctx.checkText(actor, input.text);
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
        const community = input.communityId === undefined ? null : await requireMember(store, input.communityId, actor.userId);
        const who = await activityActorOf(store, actor.userId);
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
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
        const post = await store.lockPost(postId);
        if (!post || post.is_deleted === 1) throw notFound('Post');
        if (post.author_id !== actor.userId) throw new AppError('permissionDenied', 'Only the author can delete a post.');
        await store.updatePost(postId, { is_deleted: 1, updated_at: at });
        const about = await aboutPost(store, post);
        await emit(trx, 'post.deleted', { at, actor: await activityActorOf(store, actor.userId), post: about, sourceId: postId }, now);
        return { ...post, is_deleted: 1, updated_at: at };
      });
    },

    async createComment(actor: SocialActor, postId: string, input: { text: string; parentId?: string | undefined }): Promise<CommentRow> {
      await ctx.checkText(actor, input.text);
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
        const { about } = await reachablePost(store, postId, actor.userId);
        if (input.parentId !== undefined) {
          const parent = await store.findComment(input.parentId);
          if (!parent || parent.post_id !== postId || parent.is_deleted === 1) throw notFound('Comment');
        }
        const who = await activityActorOf(store, actor.userId);
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
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
        const comment = await store.findComment(commentId);
        if (!comment || comment.is_deleted === 1) throw notFound('Comment');
        const post = await store.findPost(comment.post_id);
        if (!post) throw notFound('Post');
        if (comment.author_id !== actor.userId && post.author_id !== actor.userId) {
          throw new AppError('permissionDenied', "Only the comment's author or the post's author can delete a comment.");
        }
        if (!(await store.markCommentDeleted(commentId, now))) throw notFound('Comment');
        await store.addToCommentsCount(post.id, -1);
        const about = await aboutPost(store, post);
        // The removal concerns the comment author's contribution, whoever deletes it.
        await emit(
          trx,
          'comment.deleted',
          { at, actor: await activityActorOf(store, comment.author_id), post: about, sourceId: commentId, parentId: comment.parent_id },
          now,
        );
        return { ...comment, is_deleted: 1, updated_at: now };
      });
    },
  };
}

/** Reactions to posts: one per name and user, counted on the post. */
export function createPostReactionActions(ctx: SocialContext) {
  return {
    /** Adding a reaction the user already has changes nothing and answers the existing one. */
    async addReaction(actor: SocialActor, postId: string, reactionName: string): Promise<PostReactionRow> {
      // Others see the name in the post's reactions, so it passes the text guards like a text.
      for (const guard of ctx.textGuards) await guard(reactionName, actor, 'reactionName');
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
        const { post, about } = await reachablePost(store, postId, actor.userId, true);
        const existing = await store.findReaction(postId, actor.userId, reactionName);
        if (existing) return existing;
        const who = await activityActorOf(store, actor.userId);
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
      const now = ctx.clock.now();
      return ctx.inTransaction(now, async (store, trx, at) => {
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
        const about = await aboutPost(store, post);
        await emit(
          trx,
          'post.reaction.removed',
          { at, actor: await activityActorOf(store, actor.userId), post: about, sourceId: existing.id, reactionName },
          now,
        );
        return existing;
      });
    },
  };
}
