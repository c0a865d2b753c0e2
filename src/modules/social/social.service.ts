import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { type Dialect, dialectOf, type Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { createPostActions, createPostReactionActions, type PostTextGuard, type SocialActor, type SocialContext } from './social-posts.js';
import { type CommunityRow, createSocialStore, type SocialStore } from './social.store.js';

export type { PostTextGuard, SocialActor } from './social-posts.js';

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

  const ctx: SocialContext = { clock, inTransaction, checkText, textGuards };

  return {
    async createCommunity(
      actor: SocialActor,
      input: { communityId?: string | undefined; displayName: string },
    ): Promise<{ community: CommunityRow; isMember: boolean }> {
      // Members see the name, and the id in every post of the community: both pass the text guards.
      for (const guard of textGuards) {
        await guard(input.displayName, actor, 'displayName');
        if (input.communityId !== undefined) await guard(input.communityId, actor, 'communityId');
      }
      const now = clock.now();
      return inTransaction(now, async (store, _trx, at) => {
        const id = input.communityId ?? newObjectId(now);
        const created = await store.insertCommunity({
          id,
          display_name: input.displayName,
          created_by: actor.userId,
          member_count: 1,
          created_at: now,
          updated_at: now,
        });
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

    ...createPostActions(ctx),

    ...createPostReactionActions(ctx),

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

/**
 * A reaction on a post already deleted goes without an event or count: an erasure removes its user's
 * reactions this way where removeReaction answers that the post is gone. With `db` (a transaction, where the caller runs one).
 */
export function removeReactionOfDeletedPost(db: Executor, reactionId: string): Promise<void> {
  return createSocialStore(db, dialectOf(db)).deleteReaction(reactionId);
}

/**
 * An erasure blanks the user's soft-deleted posts and comments: a delete keeps the row (counts,
 * threads) and with it the text, which is the user's to take away. With `db`, as removeReactionOfDeletedPost.
 */
export function blankTextsOf(db: Executor, authorId: string): Promise<void> {
  return createSocialStore(db, dialectOf(db)).blankTextsOf(authorId);
}

/**
 * An erasure, once the user has left every community, drops the stints that remain (ended ones, which
 * no count includes) and names `creatorId` (the placeholder) as the creator of the communities the user
 * created. With `db`, as removeReactionOfDeletedPost.
 */
export async function forgetCommunityMember(db: Executor, userId: string, creatorId: string): Promise<void> {
  const store = createSocialStore(db, dialectOf(db));
  await store.deleteStintsOf(userId);
  await store.reassignCreator(userId, creatorId);
}
