import { channelScopeOf } from '../channels/channels.policy.js';
import { requireMayActOnUsers } from '../users/users.policy.js';
import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { parseJson } from '../../shared/values.js';
import { MAX_MUTE_PERIOD_MS, type ChannelsService } from '../channels/channels.service.js';
import type { MessageRow } from '../messages/messages.present.js';
import type { MessagesService } from '../messages/messages.service.js';
import { actorIdOf } from '../roles/admin-actor.js';
import type { UsersService } from '../users/users.service.js';
import type { BanLifts, BanTarget } from '../bans/ban-lifts.service.js';
import { flagsSnapshotOf } from './queue.present.js';
import { createQueueStore } from './queue.store.js';
import type { AuthorAction, FlagEntry, MessageReviewInput, Reviewer, ReviewRow, TargetType, UserReviewInput } from './queue.types.js';

const MINUTE_MS = 60_000;

export interface ReviewDeps {
  db: Executor;
  clock: Clock;
  /** The admin API's delete: the event, the stream and the tray see a review's delete as any other. */
  messages: Pick<MessagesService, 'deleteMessage'>;
  /** The admin channel routes' mute and ban. */
  channels: Pick<ChannelsService, 'muteUsers' | 'ban' | 'findMember'>;
  /** The admin user routes' global ban. */
  users: Pick<UsersService, 'setGlobalBan' | 'findById'>;
  /** Where a review's timed ban is scheduled to be lifted. */
  banLifts: Pick<BanLifts, 'afterReviewBan'>;
}

/** What the review's last transaction records besides the flags it clears. */
interface ReviewDraft {
  targetType: TargetType;
  targetId: string;
  channelId: string | null;
  decision: string;
  action: AuthorAction | null;
  minutes: number | null;
  note: string | null;
  message: { text: string | null; userId: string } | null;
  /** The ban the review set, and whether the user was banned so already. */
  ban: { target: BanTarget; bannedBefore: boolean } | null;
}

/** The text a review keeps of a message: a text message's text, an image's caption, else null. */
function textOf(row: MessageRow): string | null {
  const data = parseJson<Record<string, unknown>>(row.data, {});
  if (typeof data.text === 'string') return data.text;
  return typeof data.caption === 'string' ? data.caption : null;
}

const noteOf = (note: string | undefined): string | null => {
  const trimmed = note?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
};

const noOpenFlags = (what: string) => new AppError('conflict', `${what} has no open flags to review.`);

/** The policy's answer for the person a review acts on (users.policy.ts). */
async function requireMayActOn(reviewer: Reviewer, userId: string, findUser: ReviewDeps['users']['findById']): Promise<void> {
  requireMayActOnUsers(reviewer.actor, [await findUser(userId)]);
}

/**
 * Reviews of flagged messages and users; the timed bans they set are lifted by modules/bans.
 *
 * A review's effects go through the services the admin API's own routes use, each in its own
 * transaction: the action on the author first (the step most likely to be refused, a mute of someone
 * who left the channel, so a refusal leaves nothing done), then the delete, and last one transaction
 * that clears the flags and records the review. Until that commits the flags stay open, so a review
 * that failed midway is retried as a whole: the mute, ban and delete are idempotent.
 */
export function createReviewActions(deps: ReviewDeps) {
  const { clock, channels, users } = deps;
  const store = createQueueStore(deps.db);

  async function isBanned(target: BanTarget): Promise<boolean> {
    if (target.channelId === null) return (await users.findById(target.userId))?.is_global_ban === 1;
    return (await channels.findMember(target.channelId, target.userId))?.membership === 'banned';
  }

  /** Applies the action; answers the ban it set, if any, and whether the user was banned so before. */
  async function applyAction(action: AuthorAction, minutes: number | null, userId: string, channelId: string | null): Promise<ReviewDraft['ban']> {
    if (action === 'mute') {
      await channels.muteUsers(channelId ?? '', [userId], minutes === null ? MAX_MUTE_PERIOD_MS : minutes * MINUTE_MS);
      return null;
    }
    const target: BanTarget = { userId, channelId: action === 'ban' ? channelId : null };
    const bannedBefore = await isBanned(target);
    if (action === 'ban') await channels.ban(channelId ?? '', [userId]);
    else await users.setGlobalBan(userId, true);
    return { target, bannedBefore };
  }

  /** The last step: the flags cleared and the review recorded, in one transaction. */
  async function record(reviewer: Reviewer, draft: ReviewDraft): Promise<ReviewRow> {
    // Taken after the actions: a channel ban's row is then never newer than its review and its lift.
    const now = clock.now();
    return runTransaction(deps.db, async (trx) => {
      const inTrx = createQueueStore(trx);
      const flags: FlagEntry[] =
        draft.targetType === 'message' ? await inTrx.clearMessageFlags(draft.targetId) : await inTrx.clearUserFlags(draft.targetId, now);
      // Another review of the same target committed first: this one records nothing.
      if (flags.length === 0) throw noOpenFlags(draft.targetType === 'message' ? 'The message' : 'The user');
      if (draft.ban !== null) await deps.banLifts.afterReviewBan(trx, { ...draft.ban, minutes: draft.minutes }, now);
      const row: ReviewRow = {
        id: newObjectId(now),
        target_type: draft.targetType,
        target_id: draft.targetId,
        channel_id: draft.channelId,
        decision: draft.decision,
        author_action: draft.action,
        author_action_minutes: draft.action === null ? null : draft.minutes,
        note: draft.note,
        reviewer_kind: reviewer.actor.kind,
        reviewer_id: actorIdOf(reviewer.actor),
        flags: flagsSnapshotOf(flags),
        message_text: draft.message?.text ?? null,
        message_user_id: draft.message?.userId ?? null,
        created_at: now,
      };
      await inTrx.insertReview(row);
      return row;
    });
  }

  return {
    async reviewMessage(reviewer: Reviewer, messageId: string, input: MessageReviewInput): Promise<ReviewRow> {
      const message = await store.messageById(messageId);
      // To a moderator, a message of a bot's conversation does not exist.
      const hidden = message !== undefined && channelScopeOf(reviewer.actor) !== 'all' && (await store.isConversation(message.channel_id));
      if (!message || hidden) throw notFound('Message');
      if (!(await store.hasFlags('message', messageId))) throw noOpenFlags('The message');
      const action = input.author?.action ?? null;
      const minutes = input.author?.minutes ?? null;
      const snapshot = { text: textOf(message), userId: message.user_id };
      if (action !== null) await requireMayActOn(reviewer, message.user_id, users.findById);
      const ban = action === null ? null : await applyAction(action, minutes, message.user_id, message.channel_id);
      if (input.decision === 'delete') await deps.messages.deleteMessage({ userId: reviewer.userId }, messageId);
      return record(reviewer, {
        targetType: 'message',
        targetId: messageId,
        channelId: message.channel_id,
        decision: input.decision,
        action,
        minutes,
        note: noteOf(input.note),
        message: snapshot,
        ban,
      });
    },

    async reviewUser(reviewer: Reviewer, userId: string, input: UserReviewInput): Promise<ReviewRow> {
      if (!(await users.findById(userId))) throw notFound('User');
      await requireMayActOn(reviewer, userId, users.findById);
      if (!(await store.hasFlags('user', userId))) throw noOpenFlags('The user');
      const banning = input.decision === 'globalBan';
      const minutes = banning ? (input.minutes ?? null) : null;
      const ban = banning ? await applyAction('globalBan', minutes, userId, null) : null;
      return record(reviewer, {
        targetType: 'user',
        targetId: userId,
        channelId: null,
        decision: input.decision,
        action: banning ? 'globalBan' : null,
        minutes,
        note: noteOf(input.note),
        message: null,
        ban,
      });
    },
  };
}

export type ReviewActions = ReturnType<typeof createReviewActions>;
