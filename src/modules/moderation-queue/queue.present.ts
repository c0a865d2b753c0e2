import { type Static, Type } from '@sinclair/typebox';
import { IsoTime, Nullable } from '../../shared/schemas.js';
import { iso, parseJson } from '../../shared/values.js';
import { MessageRecord, presentMessage } from '../messages/messages.present.js';
import { presentUser, UserRecord } from '../users/users.present.js';
import type { UserRow } from '../users/users.types.js';
import type { FlagEntry, NamedFlag, OpenMessage, OpenUser, QueueSummary, ReviewRow } from './queue.types.js';

/** Queue and review records of the admin API's moderation queue, with their schemas. */

const FLAG_EXAMPLE = { userId: 'bob', displayName: 'Bob Stone', reason: 'Insults another member', createdAt: '2025-03-14T09:40:02.114Z' };
const REVIEW_FLAG_EXAMPLE = { userId: 'bob', reason: 'Insults another member', createdAt: '2025-03-14T09:40:02.114Z' };
const MESSAGE_EXAMPLE = { ...(MessageRecord.examples as Array<Record<string, unknown>>)[0], flagCount: 1 };
const USER_EXAMPLE = { ...(UserRecord.examples as Array<Record<string, unknown>>)[0], flagCount: 1 };

export const QueueFlagRecord = Type.Object(
  {
    userId: Type.String({ description: 'Who flagged' }),
    displayName: Type.String({ description: "The flagger's display name; '' when they have none or no longer exist" }),
    reason: Nullable(Type.String(), 'What the flagger wrote; null when they gave no reason'),
    createdAt: IsoTime('When they flagged'),
  },
  { description: 'One open flag', examples: [FLAG_EXAMPLE] },
);

export const ReviewFlagRecord = Type.Object(
  {
    userId: Type.String({ description: 'Who flagged' }),
    reason: Nullable(Type.String(), 'What the flagger wrote; null when they gave no reason'),
    createdAt: IsoTime('When they flagged'),
  },
  { description: 'A flag the review cleared, as it was', examples: [REVIEW_FLAG_EXAMPLE] },
);

const Flags = Type.Array(QueueFlagRecord, { description: 'The newest flags first, at most 100 (flagCount counts them all)' });
const FlagCount = Type.Integer({ description: 'How many users flagged it' });
const LastFlaggedAt = IsoTime('When the newest flag was raised: the order of the queue, newest first');

export const OpenMessageRecord = Type.Object(
  {
    message: MessageRecord,
    channel: Type.Object(
      { channelId: Type.String(), displayName: Type.String({ description: "'' when the channel has none" }) },
      { description: "The message's channel" },
    ),
    author: Type.Object(
      {
        userId: Type.String(),
        displayName: Type.String({ description: "'' when the author has none or no longer exists" }),
        avatarUrl: Nullable(Type.String(), "The author's avatar (it takes an access token, as /file/view does); null when they have none"),
      },
      { description: "The message's author" },
    ),
    flagCount: FlagCount,
    flags: Flags,
    lastFlaggedAt: LastFlaggedAt,
  },
  {
    description: 'A flagged message waiting for review',
    examples: [
      {
        message: MESSAGE_EXAMPLE,
        channel: { channelId: 'general', displayName: 'General' },
        author: { userId: 'alice', displayName: 'Alice Martin', avatarUrl: 'https://chat.example.com/file/view/67d3f5a5e4b0a1c2d3e4f520?size=small' },
        flagCount: 1,
        flags: [FLAG_EXAMPLE],
        lastFlaggedAt: FLAG_EXAMPLE.createdAt,
      },
    ],
  },
);
export type OpenMessageRecord = Static<typeof OpenMessageRecord>;

export const OpenUserRecord = Type.Object(
  { user: UserRecord, flagCount: FlagCount, flags: Flags, lastFlaggedAt: LastFlaggedAt },
  {
    description: 'A flagged user waiting for review',
    examples: [{ user: USER_EXAMPLE, flagCount: 1, flags: [FLAG_EXAMPLE], lastFlaggedAt: FLAG_EXAMPLE.createdAt }],
  },
);
export type OpenUserRecord = Static<typeof OpenUserRecord>;

const REVIEW_EXAMPLE = {
  reviewId: '67d3f9c1e4b0a1c2d3e4f5a0',
  targetType: 'message',
  targetId: '67d3f5a5e4b0a1c2d3e4f501',
  channelId: 'general',
  decision: 'delete',
  authorAction: { action: 'ban', minutes: 60 },
  note: 'Second warning this week',
  reviewer: { kind: 'adminToken', id: '67d3f0a2e4b0a1c2d3e4f400' },
  flags: [REVIEW_FLAG_EXAMPLE],
  message: { text: 'Standup moved to 10:30 today.', userId: 'alice' },
  createdAt: '2025-03-14T10:02:41.907Z',
};

export const ReviewRecord = Type.Object(
  {
    reviewId: Type.String(),
    targetType: Type.Union([Type.Literal('message'), Type.Literal('user')]),
    targetId: Type.String({ description: 'The message id or the user id' }),
    channelId: Nullable(Type.String(), "The message's channel; null for a user"),
    decision: Type.Union([Type.Literal('dismiss'), Type.Literal('delete'), Type.Literal('globalBan')], {
      description: 'dismiss (flags cleared, nothing else), delete (a message), globalBan (a user; also in authorAction)',
    }),
    authorAction: Nullable(
      Type.Object({
        action: Type.Union([Type.Literal('mute'), Type.Literal('ban'), Type.Literal('globalBan')], {
          description: "mute or ban in the message's channel, or globalBan",
        }),
        minutes: Nullable(Type.Integer(), 'How long it lasts; null: indefinitely'),
      }),
      "What was done to the message's author, or to the flagged user; null when nothing",
    ),
    note: Nullable(Type.String(), "The reviewer's note; null when none"),
    reviewer: Type.Object(
      {
        kind: Type.Union([Type.Literal('adminToken'), Type.Literal('user')]),
        id: Type.String({ description: "The admin token's id (as GET /api/v2/admin-tokens lists it) or the user id" }),
      },
      { description: 'Who reviewed' },
    ),
    flags: Type.Array(ReviewFlagRecord, { description: 'The flags the review cleared, newest first' }),
    message: Nullable(
      Type.Object({
        text: Nullable(Type.String(), "The message's text when reviewed; null for a message without text"),
        userId: Type.String({ description: 'The author' }),
      }),
      'The message as it was when reviewed; null for a user',
    ),
    createdAt: IsoTime('When the review was made'),
  },
  { description: 'A review of a flagged message or user', examples: [REVIEW_EXAMPLE] },
);
export type ReviewRecord = Static<typeof ReviewRecord>;

export const SummaryRecord = Type.Object(
  {
    openMessages: Type.Integer({ description: 'Messages (not deleted) with open flags' }),
    openUsers: Type.Integer({ description: 'Users with open flags' }),
    latestFlagAt: Nullable(IsoTime('The newest open flag'), 'When the newest open flag was raised; null when nothing is open'),
  },
  { description: 'What the queue holds', examples: [{ openMessages: 3, openUsers: 1, latestFlagAt: '2025-03-14T09:40:02.114Z' }] },
);

const presentFlag = (flag: NamedFlag) => ({ userId: flag.userId, displayName: flag.displayName, reason: flag.reason, createdAt: iso(flag.createdAt) });

/** An avatar's link, as the sign-in surface serves it (it asks for an access token). */
export function avatarUrlOf(publicUrl: string, user: UserRow | undefined): string | null {
  return user?.avatar ? `${publicUrl}/file/view/${encodeURIComponent(user.avatar)}?size=small` : null;
}

export function presentOpenMessage(item: OpenMessage, publicUrl: string): OpenMessageRecord {
  return {
    message: presentMessage(item.row),
    channel: { channelId: item.row.channel_id, displayName: item.channelDisplayName },
    author: { userId: item.row.user_id, displayName: item.author?.display_name ?? '', avatarUrl: avatarUrlOf(publicUrl, item.author) },
    flagCount: item.flagCount,
    flags: item.flags.map(presentFlag),
    lastFlaggedAt: iso(item.lastFlaggedAt),
  };
}

export function presentOpenUser(item: OpenUser): OpenUserRecord {
  return { user: presentUser(item.user), flagCount: item.flagCount, flags: item.flags.map(presentFlag), lastFlaggedAt: iso(item.lastFlaggedAt) };
}

const isFlagEntry = (value: unknown): value is FlagEntry => {
  const v = value as Partial<FlagEntry> | null;
  return (
    v !== null && typeof v === 'object' && typeof v.userId === 'string' && (v.reason === null || typeof v.reason === 'string') && Number.isFinite(v.createdAt)
  );
};

/** The flags a review row keeps, as JSON text. */
export const flagsSnapshotOf = (flags: readonly FlagEntry[]): string =>
  JSON.stringify(flags.map(({ userId, reason, createdAt }) => ({ userId, reason, createdAt })));

export function presentReview(row: ReviewRow): ReviewRecord {
  const flags = parseJson<unknown[]>(row.flags, []);
  return {
    reviewId: row.id,
    targetType: row.target_type as ReviewRecord['targetType'],
    targetId: row.target_id,
    channelId: row.channel_id,
    decision: row.decision as ReviewRecord['decision'],
    authorAction:
      row.author_action === null
        ? null
        : { action: row.author_action as NonNullable<ReviewRecord['authorAction']>['action'], minutes: row.author_action_minutes },
    note: row.note,
    reviewer: { kind: row.reviewer_kind as ReviewRecord['reviewer']['kind'], id: row.reviewer_id },
    flags: (Array.isArray(flags) ? flags.filter(isFlagEntry) : []).map((flag) => ({
      userId: flag.userId,
      reason: flag.reason,
      createdAt: iso(flag.createdAt),
    })),
    message: row.message_user_id === null ? null : { text: row.message_text, userId: row.message_user_id },
    createdAt: iso(row.created_at),
  };
}

export function presentSummary(summary: QueueSummary) {
  return { openMessages: summary.openMessages, openUsers: summary.openUsers, latestFlagAt: iso(summary.latestFlagAt) };
}
