import { type ChannelScope, channelScopeOf } from '../channels/channels.policy.js';
import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import { type KeysetCursor, newestFirstPage } from '../../shared/keyset.js';
import type { PageTokens, Paging } from '../../shared/paging.js';
import type { Executor } from '../../storage/database.js';
import type { AuditNote } from '../audit/audit.types.js';
import { actorMay, type AdminActor, requireActorMay } from '../roles/admin-actor.js';
import type { Permission } from '../roles/permissions.js';
import { createReviewActions, type ReviewDeps } from './queue.reviews.js';
import { createQueueStore, type QueueStore } from './queue.store.js';
import type { MessageReviewInput, OpenMessage, OpenUser, QueueSummary, Reviewer, ReviewRow, TargetType, UserReviewInput } from './queue.types.js';

export interface PageInput {
  pageToken?: string;
  limit?: number;
}

export const DEFAULT_PAGE_SIZE = 25;

/** The permissions any of which lets an actor see the queue and dismiss flags. */
const MODERATION_PERMISSIONS: readonly Permission[] = ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'];

/** 403 / 400301 unless the actor holds one of the moderation permissions. */
export function requireModerator(actor: AdminActor): void {
  if (!MODERATION_PERMISSIONS.some((permission) => actorMay(actor, permission))) {
    throw new AppError('permissionDenied', `One of the permissions ${MODERATION_PERMISSIONS.join(', ')} is required.`);
  }
}

/** Each action of a message review needs its own permission, checked before anything is done. */
function requireMayReviewMessage(actor: AdminActor, input: MessageReviewInput): void {
  requireModerator(actor);
  if (input.decision === 'delete') requireActorMay(actor, 'DELETE_MESSAGE');
  const action = input.author?.action;
  if (action === 'mute') requireActorMay(actor, 'MUTE_USER_INSIDE_CHANNEL');
  if (action === 'ban') requireActorMay(actor, 'BAN_USER_FROM_CHANNEL');
  if (action === 'globalBan') requireActorMay(actor, 'BAN_USER');
}

function requireMayReviewUser(actor: AdminActor, input: UserReviewInput): void {
  requireModerator(actor);
  if (input.decision === 'globalBan') requireActorMay(actor, 'BAN_USER');
  if (input.decision === 'dismiss' && input.minutes !== undefined) {
    const message = 'applies to decision globalBan only';
    throw new AppError('parameters', `minutes ${message}.`, { detail: [{ field: 'body.minutes', message }] });
  }
}

/** Which list a page token continues: the open messages (m), the open users (u), or reviews (r) of a type or both. */
interface QueueFilters extends Record<string, unknown> {
  k: 'm' | 'u' | 'r';
  t: TargetType | null;
  /** The open messages' filters, present only when given (so an unfiltered list's tokens read as before): channel, reporter, reason. */
  c?: string;
  p?: string;
  q?: string;
}

/** The open messages' filters as a page token carries them. */
export interface OpenMessagesInput extends PageInput {
  channelId?: string | undefined;
  reporter?: string | undefined;
  reason?: string | undefined;
}

const optionalText = (value: unknown): boolean => value === undefined || typeof value === 'string';

/** Filters of the same list only: a token of the users queue never continues the messages queue. */
const filtersOfKind =
  (kind: QueueFilters['k']) =>
  (value: unknown): value is QueueFilters => {
    const v = value as Partial<QueueFilters> | null;
    return (
      v !== null &&
      typeof v === 'object' &&
      v.k === kind &&
      (v.t === null || v.t === 'message' || v.t === 'user') &&
      optionalText(v.c) &&
      optionalText(v.p) &&
      optionalText(v.q)
    );
  };

/** One keyset page of a queue list newest first (shared/keyset.ts); a token continues its own list only. */
function keysetPage<T>(
  pageTokens: PageTokens,
  input: PageInput,
  requested: QueueFilters,
  fetch: (limit: number, cursor: KeysetCursor | null, filters: QueueFilters) => Promise<T[]>,
  keyOf: (item: T) => { at: number; id: string },
): Promise<{ items: T[]; paging: Paging }> {
  return newestFirstPage({
    pageTokens,
    pageToken: input.pageToken,
    limit: input.limit,
    defaultLimit: DEFAULT_PAGE_SIZE,
    filters: requested,
    unfiltered: { filters: { k: requested.k, t: null }, isFilters: filtersOfKind(requested.k) },
    fetch,
    keyOf,
  });
}

async function openMessagesOf(
  store: QueueStore,
  scope: ChannelScope,
  limit: number,
  cursor: KeysetCursor | null,
  filters: QueueFilters,
): Promise<OpenMessage[]> {
  const narrowing = { channelId: filters.c ?? null, reporter: filters.p ?? null, reason: filters.q ?? null };
  const targets = await store.flaggedPage('message', scope, limit, cursor, narrowing);
  const ids = targets.map((target) => target.id);
  const rows = new Map((await store.messagesByIds(ids)).map((row) => [row.id, row]));
  const live = [...rows.values()];
  const [channels, authors, flags] = await Promise.all([
    store.channelNames([...new Set(live.map((row) => row.channel_id))]),
    store.usersByIds([...new Set(live.map((row) => row.user_id))]),
    store.flagsOf('message', ids),
  ]);
  const authorById = new Map(authors.map((user) => [user.id, user]));
  return targets.flatMap((target) => {
    const row = rows.get(target.id);
    if (!row) return [];
    const channelDisplayName = channels.get(row.channel_id) ?? '';
    return [
      {
        row,
        channelDisplayName,
        author: authorById.get(row.user_id),
        flagCount: target.flagCount,
        flags: flags.get(target.id) ?? [],
        lastFlaggedAt: target.lastAt,
      },
    ];
  });
}

async function openUsersOf(store: QueueStore, limit: number, cursor: KeysetCursor | null): Promise<OpenUser[]> {
  const targets = await store.flaggedPage('user', 'all', limit, cursor);
  const ids = targets.map((target) => target.id);
  const [users, flags] = await Promise.all([store.usersByIds(ids), store.flagsOf('user', ids)]);
  const userById = new Map(users.map((user) => [user.id, user]));
  return targets.flatMap((target) => {
    const user = userById.get(target.id);
    return user ? [{ user, flagCount: target.flagCount, flags: flags.get(target.id) ?? [], lastFlaggedAt: target.lastAt }] : [];
  });
}

export interface ModerationQueueDeps extends ReviewDeps {
  db: Executor;
  clock: Clock;
  pageTokens: PageTokens;
}

/**
 * The moderation queue of the admin API: the flagged messages and users waiting for review, newest
 * flag first; reviews that dismiss the flags or act on them (delete the message, mute or ban its
 * author, ban a user) and record what was decided. The bans a review sets for a time are lifted by
 * modules/bans. Every call takes the admin API's actor: seeing the queue needs one of the moderation
 * permissions, and each action its own.
 */
export function createModerationQueueService(deps: ModerationQueueDeps) {
  const store = createQueueStore(deps.db);
  const reviews = createReviewActions(deps);

  const reviewKey = (row: ReviewRow) => ({ at: row.created_at, id: row.id });

  return {
    /** The open flagged messages, newest flag first, optionally of one channel or with a flag by a reporter or holding a reason. */
    async openMessages(actor: AdminActor, input: OpenMessagesInput): Promise<{ items: OpenMessage[]; paging: Paging }> {
      requireModerator(actor);
      const requested: QueueFilters = { k: 'm', t: null };
      if (input.channelId !== undefined) requested.c = input.channelId;
      if (input.reporter !== undefined) requested.p = input.reporter;
      if (input.reason !== undefined && input.reason.trim() !== '') requested.q = input.reason.trim();
      return keysetPage(
        deps.pageTokens,
        { pageToken: input.pageToken, limit: input.limit },
        requested,
        (limit, cursor, filters) => openMessagesOf(store, channelScopeOf(actor), limit, cursor, filters),
        (item) => ({
          at: item.lastFlaggedAt,
          id: item.row.id,
        }),
      );
    },

    async openUsers(actor: AdminActor, input: PageInput): Promise<{ items: OpenUser[]; paging: Paging }> {
      requireModerator(actor);
      return keysetPage(
        deps.pageTokens,
        input,
        { k: 'u', t: null },
        (limit, cursor) => openUsersOf(store, limit, cursor),
        (item) => ({
          at: item.lastFlaggedAt,
          id: item.user.id,
        }),
      );
    },

    /** The reviews made, newest first, of one target type or both. */
    async reviews(actor: AdminActor, targetType: TargetType | null, input: PageInput): Promise<{ items: ReviewRow[]; paging: Paging }> {
      requireModerator(actor);
      const scope = channelScopeOf(actor);
      return keysetPage(
        deps.pageTokens,
        input,
        { k: 'r', t: targetType },
        (limit, cursor, filters) => store.reviewsPage(filters.t, scope, limit, cursor),
        reviewKey,
      );
    },

    /** What the queue holds for this actor: counts over the open flag rows, cheap enough to poll every few seconds. */
    async summary(actor: AdminActor): Promise<QueueSummary> {
      requireModerator(actor);
      const [messages, users] = await Promise.all([store.openCount('message', channelScopeOf(actor)), store.openCount('user', 'all')]);
      const times = [messages.latest, users.latest].filter((at): at is number => at !== null);
      return { openMessages: messages.count, openUsers: users.count, latestFlagAt: times.length === 0 ? null : Math.max(...times) };
    },

    /** `note`: the audited request's, written in the review's transaction. */
    async reviewMessage(reviewer: Reviewer, messageId: string, input: MessageReviewInput, note: AuditNote | null = null): Promise<ReviewRow> {
      requireMayReviewMessage(reviewer.actor, input);
      return reviews.reviewMessage(reviewer, messageId, input, note);
    },

    async reviewUser(reviewer: Reviewer, userId: string, input: UserReviewInput, note: AuditNote | null = null): Promise<ReviewRow> {
      requireMayReviewUser(reviewer.actor, input);
      return reviews.reviewUser(reviewer, userId, input, note);
    },
  };
}

export type ModerationQueueService = ReturnType<typeof createModerationQueueService>;
