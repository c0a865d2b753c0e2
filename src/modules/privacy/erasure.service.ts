import type { Clock } from '../../clock.js';
import type { Notices } from '../../events/notices.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { afterCommit, runTransaction } from '../../storage/transactions.js';
import type { AuditService } from '../audit/audit.service.js';
import type { AuditNote } from '../audit/audit.types.js';
import { cancelLiftsOf } from '../bans/ban-lifts.service.js';
import { truncateWal } from '../../storage/wal-truncate.js';
import { reassignEvent } from '../../events/outbox-rewrite.js';
import { dropMemberRowOfClosedChannel, dropMembershipLeftoversOf } from '../channels/channels.service.js';
import { AVATAR_SIZES, deleteAvatarRowsOf } from '../identity/avatars.service.js';
import { revokeUserCredentials } from '../identity/credentials.service.js';
import { forgetAccountFailures } from '../identity/throttle.js';
import { deleteMessagesIn, reassignMessagesTo } from '../messages/messages.service.js';
import { dropSnapshotFlagsOf, replaceReviewedAuthor, replaceReviewedUser, replaceReviewer } from '../moderation-queue/queue.erasure.js';
import { withdrawMessageFlagsBy } from '../flags/message-flags.service.js';
import { removeReactionOfDeletedMessage } from '../reactions/reactions.service.js';
import { blankTextsOf, forgetCommunityMember, removeReactionOfDeletedPost } from '../social/social.service.js';
import { anonymiseTrayActor, eraseTrayOf } from '../tray/tray.service.js';
import { blankUserProfile, deleteUserRow, withdrawUserFlagsBy } from '../users/users.service.js';
import { rewriteWebhookBodies } from '../webhooks/webhook-redaction.js';
import { createErasureStore } from './erasure.store.js';
import { ERASED_USER_ID, ERASED_USER_NAME, type ErasureServices, type MessagesMode } from './privacy.types.js';
import { forgetDailySender } from '../stats/daily-tallies.js';

/** Rows handled per transaction: a user with a long history never holds one giant transaction. */
const BATCH = 200;

export interface ErasureResult {
  messages: number;
  reactions: number;
  posts: number;
  comments: number;
  flags: number;
  memberships: number;
  avatars: number;
}

const isNotFound = (error: unknown): boolean => error instanceof AppError && error.kind === 'notFound';

/** Ids in an event payload, replaced wherever they stand; the actor's name and the texts of a social event go. */
function rewritePayload(value: unknown, userId: string): unknown {
  if (value === userId) return ERASED_USER_ID;
  if (Array.isArray(value)) return value.map((item) => rewritePayload(item, userId));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = rewritePayload(item, userId);
  const actor = out.actor as Record<string, unknown> | undefined;
  if (actor && typeof actor === 'object' && actor.id === ERASED_USER_ID) out.actor = { ...actor, name: ERASED_USER_NAME, avatarId: null };
  const record = out.record as Record<string, unknown> | undefined;
  if (record && typeof record === 'object' && typeof record.text === 'string' && (record.authorId === ERASED_USER_ID || record.userId === ERASED_USER_ID)) {
    out.record = { ...record, text: '' };
  }
  return out;
}

export interface PrivacyDeps {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  blobs: BlobStore;
  /** Told once sign-in has ended: every instance closes the user's streams. */
  notices: Pick<Notices, 'publish'>;
  /** Where the erasure's audit entry is written, in its first transaction. */
  audit: Pick<AuditService, 'writeIn'>;
  services: ErasureServices;
}

/**
 * Erases a user (GDPR article 17). A first transaction decides it (profile, sign-in, audit entry and a
 * row marking the erasure under way, all or nothing); each step after it works in batches, each batch
 * its own transaction, so a long history never holds one giant transaction; the users row and the
 * marker go last, together. An erasure a crash interrupted is finished when an instance starts, or
 * by asking again. Every write to another module's table goes through that module's service: removals
 * as its user or an admin makes them where the service offers one (reactions, posts, comments,
 * community and channel memberships), so counts, events and tray records stay right, and the rest
 * through the functions the owners offer an erasure, in the erasure's transactions.
 */
export function createErasureService(deps: PrivacyDeps) {
  const { db, dialect, clock, services } = deps;
  const store = createErasureStore(db);
  const actor = (userId: string) => ({ userId });

  /**
   * The command's transaction: the profile scrubbed (later events name the user by id only), sign-in
   * ended, the pending lifts of the user's bans cancelled (no sweep lifts a ban while the erasure runs),
   * the erasure marked under way and its audit entry written, all or nothing. Once it commits the
   * erasure is certain: the batches that follow finish it, after a crash on the next start.
   */
  async function begin(userId: string, mode: MessagesMode, note: AuditNote | null): Promise<void> {
    await runTransaction(db, async (trx) => {
      const user = await services.users.findById(userId, trx);
      if (!user) throw notFound('User');
      // The throttle's rows name the account by its sign-in name, which goes with the profile.
      if (user.username) await forgetAccountFailures(trx, user.username);
      await blankUserProfile(trx, userId, clock.now());
      await revokeUserCredentials(trx, userId, clock.now());
      await cancelLiftsOf(trx, userId);
      await createErasureStore(trx).markPending(userId, mode, clock.now());
      if (note !== null) await deps.audit.writeIn(trx, note, [{ field: 'userId', id: userId }]);
      // The user's streams end on every instance once sign-in has ended.
      afterCommit(trx, () => deps.notices.publish({ type: 'user.tokensRevoked', userId }));
    });
  }

  async function removeReactions(userId: string): Promise<number> {
    let count = 0;
    for (let rows = await store.messageReactions(userId, BATCH); rows.length > 0; rows = await store.messageReactions(userId, BATCH)) {
      for (const row of rows) {
        try {
          await services.reactions.remove(actor(userId), row.message_id, row.reaction_name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          // The message is deleted: nobody sees its reactions, so the row goes without an event.
          await runTransaction(db, (trx) => removeReactionOfDeletedMessage(trx, { id: row.id, messageId: row.message_id, reactionName: row.reaction_name }));
        }
        count += 1;
      }
    }
    for (let rows = await store.postReactions(userId, BATCH); rows.length > 0; rows = await store.postReactions(userId, BATCH)) {
      for (const row of rows) {
        try {
          await services.social.removeReaction(actor(userId), row.post_id, row.reaction_name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          await removeReactionOfDeletedPost(db, row.id);
        }
        count += 1;
      }
    }
    return count;
  }

  /** Comments, then posts, deleted as their author deletes them (tray removals included), then their texts blanked. */
  async function removeSocial(userId: string): Promise<{ posts: number; comments: number }> {
    let comments = 0;
    let posts = 0;
    for (let ids = await store.liveComments(userId, BATCH); ids.length > 0; ids = await store.liveComments(userId, BATCH)) {
      for (const id of ids) await services.social.deleteComment(actor(userId), id);
      comments += ids.length;
    }
    for (let ids = await store.livePosts(userId, BATCH); ids.length > 0; ids = await store.livePosts(userId, BATCH)) {
      for (const id of ids) await services.social.deletePost(actor(userId), id);
      posts += ids.length;
    }
    await blankTextsOf(db, userId);
    return { posts, comments };
  }

  /** Leaves each open channel as the admin API removes a member (count and member.removed event), then each community. */
  async function removeMemberships(userId: string): Promise<number> {
    let count = 0;
    for (let ids = await store.memberChannels(userId, BATCH); ids.length > 0; ids = await store.memberChannels(userId, BATCH)) {
      for (const channelId of ids) {
        try {
          await services.channels.removeUsers(channelId, [userId]);
        } catch (error) {
          // A closed channel counts and tells no one: its row just goes.
          if (!(error instanceof AppError && (error.kind === 'conflict' || error.kind === 'notFound'))) throw error;
          await dropMemberRowOfClosedChannel(db, channelId, userId);
        }
      }
      count += ids.length;
    }
    for (let ids = await store.currentCommunities(userId, BATCH); ids.length > 0; ids = await store.currentCommunities(userId, BATCH)) {
      for (const communityId of ids) await services.social.leave(actor(userId), communityId);
      count += ids.length;
    }
    // Ban rows (kept by bans and closes) and former community stints: no count includes them.
    await dropMembershipLeftoversOf(db, userId);
    await forgetCommunityMember(db, userId, ERASED_USER_ID);
    return count;
  }

  /**
   * Messages, a batch per transaction: the author becomes the placeholder, then (delete mode) they are
   * deleted as an admin deletes them, which rewrites every copy into a tombstone naming the placeholder.
   * Each batch walks on from the last id of the one before, so the batches together read the table
   * once; a last walk from the lowest id catches a message written meanwhile below that position (ids
   * of one second from several instances do not arrive in order).
   */
  async function handleMessages(userId: string, mode: MessagesMode): Promise<number> {
    let count = 0;
    let afterId = '';
    for (let rescanned = false; ; ) {
      const from = afterId;
      const ids = await runTransaction(db, async (trx) => {
        const batch = await createErasureStore(trx).messagesOf(userId, from, BATCH);
        await reassignMessagesTo(trx, batch, ERASED_USER_ID);
        if (mode === 'delete' && batch.length > 0) await deleteMessagesIn(trx, dialect, batch, clock.now());
        return batch;
      });
      count += ids.length;
      afterId = ids[ids.length - 1] ?? afterId;
      if (ids.length === BATCH) continue;
      if (rescanned || from === '') break;
      rescanned = true;
      afterId = '';
    }
    if (mode === 'delete') await services.messages.sweepDeletedMedia();
    return count;
  }

  /** Every event the user acted in keeps its place in the outbox and names the placeholder instead. */
  async function rewriteOutbox(userId: string): Promise<void> {
    for (;;) {
      const rows = await store.outboxEvents(userId, 0, BATCH);
      if (rows.length === 0) return;
      await runTransaction(db, async (trx) => {
        const rewritten = [];
        for (const row of rows) {
          const data = rewritePayload(JSON.parse(row.payload) as unknown, userId);
          await reassignEvent(trx, Number(row.id), JSON.stringify(data), ERASED_USER_ID);
          if (row.type === 'message.created') rewritten.push({ id: Number(row.id), type: row.type, createdAt: Number(row.created_at), data });
        }
        await rewriteWebhookBodies(trx, dialect, rewritten);
      });
    }
  }

  /** The flags the user raised on messages and users, with the flagged rows' counts lowered, a batch of each per transaction. */
  async function removeFlags(userId: string): Promise<number> {
    let count = 0;
    for (;;) {
      const removed = await runTransaction(db, async (trx) => {
        const onMessages = await withdrawMessageFlagsBy(trx, userId, BATCH);
        return onMessages + (await withdrawUserFlagsBy(trx, userId, BATCH));
      });
      count += removed;
      if (removed === 0) return count;
    }
  }

  /** Runs one batch step in its own transaction until it changes nothing more. */
  async function inBatches(step: (trx: Executor) => Promise<number>): Promise<void> {
    for (;;) {
      const changed = await runTransaction(db, step);
      if (changed === 0) return;
    }
  }

  /**
   * The moderation queue's reviews keep the decisions and drop the person: their flags leave the
   * snapshots (as their open flags are deleted), and where they were the reviewed author, the reviewed
   * user or the reviewer, the placeholder stands. A reviewed message's text goes with delete mode and
   * stays with anonymise mode, as the message itself does.
   */
  async function clearReviews(userId: string, mode: MessagesMode): Promise<void> {
    await inBatches((trx) => replaceReviewedAuthor(trx, userId, ERASED_USER_ID, mode === 'delete', BATCH));
    await inBatches((trx) => replaceReviewedUser(trx, userId, ERASED_USER_ID, BATCH));
    await inBatches((trx) => replaceReviewer(trx, userId, ERASED_USER_ID, BATCH));
    let after: string | null = '';
    while (after !== null) {
      const from: string = after;
      after = await runTransaction(db, (trx) => dropSnapshotFlagsOf(trx, userId, from, BATCH));
    }
  }

  /** The avatar rows and then their blobs; the users row's delete would take the rows, never the files. */
  async function removeAvatars(userId: string): Promise<number> {
    const ids = await store.avatarIds(userId);
    await deleteAvatarRowsOf(db, userId);
    for (const id of ids) for (const size of Object.keys(AVATAR_SIZES)) await deps.blobs.delete(`avatar-${id}-${size}`);
    return ids.length;
  }

  /** Every step after the first transaction, each in batches a rerun finishes; the user row and the erasure's own go last, together. */
  async function finish(userId: string, mode: MessagesMode): Promise<ErasureResult> {
    const reactions = await removeReactions(userId);
    const { posts, comments } = await removeSocial(userId);
    const flags = await removeFlags(userId);
    const memberships = await removeMemberships(userId);
    const messages = await handleMessages(userId, mode);
    await rewriteOutbox(userId);
    await clearReviews(userId, mode);
    await eraseTrayOf(db, userId);
    await anonymiseTrayActor(db, userId, ERASED_USER_NAME);
    await forgetDailySender(db, userId);
    const avatars = await removeAvatars(userId);
    // Every text of the user is gone from the tables: the WAL's older frames, which still hold them,
    // go too. Before the users row, so that an erasure this cannot finish is found and run again.
    await truncateWal(db, dialect);
    // Last: the cascade of the users row takes tokens, grants, sessions, codes and flags on the user.
    await runTransaction(db, async (trx) => {
      await deleteUserRow(trx, userId);
      await createErasureStore(trx).clearPending(userId);
    });
    return { messages, reactions, posts, comments, flags, memberships, avatars };
  }

  return {
    /**
     * Erases the user, one command: see begin for its transaction and finish for the rest. `note`: the
     * audited request's (the admin route's, the CLI's), written in the first transaction.
     */
    async erase(userId: string, mode: MessagesMode, note: AuditNote | null): Promise<ErasureResult> {
      if (userId === ERASED_USER_ID) throw new AppError('badRequest', 'The placeholder of erased users cannot be erased.');
      await begin(userId, mode, note);
      return finish(userId, mode);
    },

    /** Finishes the erasures a stopped process left under way (each instance at start; reruns are harmless). */
    async resumePending(): Promise<number> {
      const pending = await store.pending();
      for (const row of pending) await finish(row.user_id, row.messages_mode);
      return pending.length;
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
