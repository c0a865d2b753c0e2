import { channelScopeOf } from '../channels/channels.policy.js';
import { requireMayActOnUsers } from '../users/users.policy.js';
import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import type { AuditService } from '../audit/audit.service.js';
import type { AuditNote, AuditTarget } from '../audit/audit.types.js';
import { takeMessageFlags, type TakenFlag } from '../flags/message-flags.service.js';
import { parseJson } from '../../shared/values.js';
import { MAX_MUTE_PERIOD_MS, type ChannelsService } from '../channels/channels.service.js';
import type { MessageRow } from '../messages/messages.present.js';
import type { MessagesService } from '../messages/messages.service.js';
import { actorIdOf } from '../roles/admin-actor.js';
import { takeUserFlags, type UsersService } from '../users/users.service.js';
import type { BanLifts, BanTarget } from '../bans/ban-lifts.service.js';
import { flagsSnapshotOf } from './queue.present.js';
import { createQueueStore } from './queue.store.js';
import type { AuthorAction, FlagEntry, MessageReviewInput, Reviewer, ReviewRow, TargetType, UserReviewInput } from './queue.types.js';

const MINUTE_MS = 60_000;

export interface ReviewDeps {
  db: Executor;
  clock: Clock;
  /** The admin API's delete: the event, the stream and the tray see a review's delete as any other. */
  messages: Pick<MessagesService, 'deleteMessageIn'>;
  /** The admin channel routes' mute and ban. */
  channels: Pick<ChannelsService, 'muteUsers' | 'ban' | 'findMember'>;
  /** The admin user routes' global ban. */
  users: Pick<UsersService, 'setGlobalBan' | 'findById'>;
  /** Where a review's timed ban is scheduled to be lifted. */
  banLifts: Pick<BanLifts, 'afterReviewBan'>;
  /** Where the review's audit entry is written, in its transaction. */
  audit: Pick<AuditService, 'writeIn'>;
}

/** What the review's transaction records besides the flags it clears. */
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

const flagEntryOf = (row: TakenFlag): FlagEntry => ({ userId: row.flagger_id, reason: row.reason, createdAt: row.created_at });

/** The policy's answer for the person a review acts on (users.policy.ts). */
async function requireMayActOn(reviewer: Reviewer, userId: string, findUser: ReviewDeps['users']['findById']): Promise<void> {
  requireMayActOnUsers(reviewer.actor, [await findUser(userId)]);
}

/** The ids a review's audit entry names: the reviewed message or user, and the person acted on. */
function auditTargetsOf(draft: ReviewDraft): AuditTarget[] {
  const targets: AuditTarget[] = [{ field: draft.targetType === 'message' ? 'messageId' : 'userId', id: draft.targetId }];
  if (draft.message !== null && draft.action !== null) targets.push({ field: 'userId', id: draft.message.userId });
  return targets;
}

/**
 * Reviews of flagged messages and users, each one command: the action on the author (mute, channel
 * ban, global ban), the delete, the flags cleared, the review recorded, the timed ban's lift, the
 * audit entry and the outbox events commit together in one transaction or not at all. A review that
 * meets flags cleared by another review that committed first is refused whole (409). The timed bans
 * it sets are lifted by modules/bans.
 */
export function createReviewActions(deps: ReviewDeps) {
  const { clock, channels, users } = deps;
  const store = createQueueStore(deps.db);

  async function isBanned(trx: Executor, target: BanTarget): Promise<boolean> {
    if (target.channelId === null) return (await users.findById(target.userId, trx))?.is_global_ban === 1;
    return (await channels.findMember(target.channelId, target.userId, trx))?.membership === 'banned';
  }

  /** Applies the action; answers the ban it set, if any, and whether the user was banned so before. */
  async function applyAction(
    trx: Executor,
    action: AuthorAction,
    minutes: number | null,
    userId: string,
    channelId: string | null,
  ): Promise<ReviewDraft['ban']> {
    if (action === 'mute') {
      await channels.muteUsers(channelId ?? '', [userId], minutes === null ? MAX_MUTE_PERIOD_MS : minutes * MINUTE_MS, trx);
      return null;
    }
    const target: BanTarget = { userId, channelId: action === 'ban' ? channelId : null };
    const bannedBefore = await isBanned(trx, target);
    if (action === 'ban') await channels.ban(channelId ?? '', [userId], trx);
    else await users.setGlobalBan(userId, true, trx);
    return { target, bannedBefore };
  }

  /** The flags cleared, the review and its ban's lift recorded, the audit entry written; in the review's transaction. */
  async function record(trx: Executor, reviewer: Reviewer, draft: ReviewDraft, note: AuditNote | null): Promise<ReviewRow> {
    const now = clock.now();
    const taken = draft.targetType === 'message' ? await takeMessageFlags(trx, draft.targetId) : await takeUserFlags(trx, draft.targetId, now);
    // Another review of the same target committed first: this one changes nothing.
    if (taken.length === 0) throw noOpenFlags(draft.targetType === 'message' ? 'The message' : 'The user');
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
      flags: flagsSnapshotOf(taken.map(flagEntryOf)),
      message_text: draft.message?.text ?? null,
      message_user_id: draft.message?.userId ?? null,
      created_at: now,
    };
    await createQueueStore(trx).insertReview(row);
    if (note !== null) await deps.audit.writeIn(trx, note, auditTargetsOf(draft));
    return row;
  }

  return {
    async reviewMessage(reviewer: Reviewer, messageId: string, input: MessageReviewInput, note: AuditNote | null): Promise<ReviewRow> {
      const message = await store.messageById(messageId);
      // To a moderator, a message of a bot's conversation does not exist.
      const hidden = message !== undefined && channelScopeOf(reviewer.actor) !== 'all' && (await store.isConversation(message.channel_id));
      if (!message || hidden) throw notFound('Message');
      if (!(await store.hasFlags('message', messageId))) throw noOpenFlags('The message');
      const action = input.author?.action ?? null;
      const minutes = input.author?.minutes ?? null;
      if (action !== null) await requireMayActOn(reviewer, message.user_id, users.findById);
      return runTransaction(deps.db, async (trx) => {
        const ban = action === null ? null : await applyAction(trx, action, minutes, message.user_id, message.channel_id);
        if (input.decision === 'delete') await deps.messages.deleteMessageIn(trx, { userId: reviewer.userId }, messageId);
        const draft: ReviewDraft = {
          targetType: 'message',
          targetId: messageId,
          channelId: message.channel_id,
          decision: input.decision,
          action,
          minutes,
          note: noteOf(input.note),
          message: { text: textOf(message), userId: message.user_id },
          ban,
        };
        return record(trx, reviewer, draft, note);
      });
    },

    async reviewUser(reviewer: Reviewer, userId: string, input: UserReviewInput, note: AuditNote | null): Promise<ReviewRow> {
      if (!(await users.findById(userId))) throw notFound('User');
      await requireMayActOn(reviewer, userId, users.findById);
      if (!(await store.hasFlags('user', userId))) throw noOpenFlags('The user');
      const banning = input.decision === 'globalBan';
      const minutes = banning ? (input.minutes ?? null) : null;
      return runTransaction(deps.db, async (trx) => {
        const ban = banning ? await applyAction(trx, 'globalBan', minutes, userId, null) : null;
        const draft: ReviewDraft = {
          targetType: 'user',
          targetId: userId,
          channelId: null,
          decision: input.decision,
          action: banning ? 'globalBan' : null,
          minutes,
          note: noteOf(input.note),
          message: null,
          ban,
        };
        return record(trx, reviewer, draft, note);
      });
    },
  };
}

export type ReviewActions = ReturnType<typeof createReviewActions>;
