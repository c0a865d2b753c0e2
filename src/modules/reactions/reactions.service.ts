import type { ChannelScope } from '../channels/channels.policy.js';
import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Paging, PageTokens } from '../../shared/paging.js';
import { type Dialect, dialectOf, type Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import type { MemberRow } from '../channels/channels.types.js';
import { writeReactionSummary } from '../messages/messages.service.js';
import type { UserRow } from '../users/users.types.js';
import { presentReactionEvent, type ReactionSummary } from './reactions.present.js';
import { createReactionsStore, type ReactedMessage, type ReactionRow, type ReactionsStore } from './reactions.store.js';

/** Who reacts: the admin's own user on the admin API, the caller on the client API. */
export interface ReactionActor {
  userId: string;
  /** Acting through a member surface (client API): membership is checked again inside the write. */
  asMember?: boolean;
}

export interface ReactionChange {
  reaction: ReactionRow;
  summary: ReactionSummary;
}

export interface ReactorsQuery {
  messageId: string;
  reactionName?: string | undefined;
  skip?: number | undefined;
  limit?: number | undefined;
  token?: string | undefined;
}

/** Reactors per page when `options.limit` is absent; the schema caps it at 100. */
export const DEFAULT_REACTORS_LIMIT = 20;
/** `limit` 0 or absent on most-reacted means this many (API contract: default 0). */
export const DEFAULT_MOST_REACTED_LIMIT = 10;

interface ReactorCursor extends Record<string, unknown> {
  /** The message the token pages. */
  m: string;
  /** The reactionName filter, '' for none. */
  n: string;
  /** The reaction to continue from, exclusive: its id and creation time. */
  r: string;
  t: number;
  d: 'n' | 'p';
}

const isReactorCursor = (value: Record<string, unknown>): value is ReactorCursor =>
  typeof value.m === 'string' &&
  typeof value.n === 'string' &&
  typeof value.r === 'string' &&
  Number.isInteger(value.t) &&
  (value.d === 'n' || value.d === 'p');

function liveOrNotFound(message: ReactedMessage | undefined): ReactedMessage {
  if (!message || message.is_deleted === 1) throw notFound('Message');
  return message;
}

/** Rebuilds the message's `reactions` map and `reactionsCount` from its counts, inside the change's transaction `trx`. */
async function refreshSummary(trx: Executor, inTrx: ReactionsStore, message: ReactedMessage, now: number): Promise<ReactionSummary> {
  // No prototype: a reaction named `__proto__` must be a key like any other, not replace the prototype.
  const reactions: Record<string, number> = Object.create(null);
  let reactionsCount = 0;
  for (const row of await inTrx.countsOf(message.id)) {
    reactions[row.reaction_name] = row.reaction_count;
    reactionsCount += row.reaction_count;
  }
  await writeReactionSummary(trx, message.id, JSON.stringify(reactions), reactionsCount, now);
  return { messageId: message.id, channelId: message.channel_id, reactions, reactionsCount };
}

/** The reactors of a live message, in reaction order, paged by skip + limit or by token. */
async function listReactors(
  store: ReactionsStore,
  pageTokens: PageTokens,
  findUsers: (userIds: readonly string[]) => Promise<UserRow[]>,
  query: ReactorsQuery,
): Promise<{ rows: ReactionRow[]; users: UserRow[]; paging: Paging }> {
  liveOrNotFound(await store.findMessage(query.messageId));
  const limit = query.limit ?? DEFAULT_REACTORS_LIMIT;
  let reactionName = query.reactionName ?? null;
  let cursor: ReactorCursor | null = null;
  if (query.token !== undefined) {
    cursor = pageTokens.decode(query.token, isReactorCursor);
    // A token pages the listing it came from; used on another message or filter it is not valid.
    if (cursor.m !== query.messageId || (reactionName !== null && reactionName !== cursor.n)) throw new AppError('badRequest', 'Query token is invalid.');
    reactionName = cursor.n === '' ? null : cursor.n;
  }
  const backwards = cursor?.d === 'p';
  const fetched = await store.listReactors({
    messageId: query.messageId,
    reactionName,
    after: cursor?.d === 'n' ? { at: cursor.t, id: cursor.r } : null,
    before: backwards ? { at: (cursor as ReactorCursor).t, id: (cursor as ReactorCursor).r } : null,
    skip: cursor === null ? (query.skip ?? 0) : 0,
    order: backwards ? 'desc' : 'asc',
    limit: limit + 1,
  });
  const hasMore = fetched.length > limit;
  const page = fetched.slice(0, limit);
  const rows = backwards ? page.reverse() : page;
  const first = rows[0];
  const last = rows[rows.length - 1];
  const tokenAt = (row: ReactionRow, d: 'n' | 'p') => pageTokens.encode({ m: query.messageId, n: reactionName ?? '', r: row.id, t: Number(row.created_at), d });
  const hasEarlier = backwards ? hasMore : cursor !== null || (query.skip ?? 0) > 0;
  const paging: Paging = {
    next: last && (backwards || hasMore) ? tokenAt(last, 'n') : null,
    prev: first && hasEarlier ? tokenAt(first, 'p') : null,
  };
  const reactors = await findUsers([...new Set(rows.map((row) => row.user_id))]);
  return { rows, users: reactors, paging };
}

/** Inside a write: the message's channel locked shared (PostgreSQL), and the user a member of it. */
async function requireMemberUnderLock(inTrx: ReactionsStore, messageId: string, userId: string): Promise<void> {
  const message = liveOrNotFound(await inTrx.findMessage(messageId));
  if ((await inTrx.membershipUnderLock(message.channel_id, userId)) !== 'member') {
    throw new AppError('permissionDenied', 'Not a member of the channel.');
  }
}

/** Checks a reaction name before it is added (the moderation rules); throws to refuse it. */
export type ReactionNameGuard = (actor: ReactionActor, reactionName: string) => void | Promise<void>;

export function createReactionsService(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  pageTokens: PageTokens;
  /** The channels module's lookup: a member surface reacts only in channels the caller is a member of. */
  findMember: (channelId: string, userId: string) => Promise<MemberRow | undefined>;
  /** The users module's lookup: the reactors of a listing. */
  findUsers: (userIds: readonly string[]) => Promise<UserRow[]>;
  nameGuards?: readonly ReactionNameGuard[];
}) {
  const { db, dialect, clock, pageTokens } = deps;
  const store = createReactionsStore(db, dialect);

  /**
   * One reaction change in one transaction: lock the message, change the reaction row and its count,
   * rebuild the summary, append the event. All or nothing.
   */
  async function change(
    messageId: string,
    apply: (inTrx: ReactionsStore, message: ReactedMessage, now: number) => Promise<ReactionRow>,
    eventType: 'reaction.added' | 'reaction.removed',
    actor: ReactionActor,
  ): Promise<ReactionChange> {
    const now = clock.now();
    return runTransaction(db, async (trx) => {
      const inTrx = createReactionsStore(trx, dialect);
      // A member's reaction is judged by their membership at commit: a ban committed between the
      // route's check and this write let it through on PostgreSQL (and its event reached the channel).
      // The channel is locked before the message, in the order a close takes them.
      if (actor.asMember === true) await requireMemberUnderLock(inTrx, messageId, actor.userId);
      const message = liveOrNotFound(await inTrx.lockMessage(messageId));
      const reaction = await apply(inTrx, message, now);
      const summary = await refreshSummary(trx, inTrx, message, now);
      await appendEvents(trx, [{ type: eventType, channelId: message.channel_id, userId: actor.userId, data: presentReactionEvent(reaction, summary) }], now);
      return { reaction, summary };
    });
  }

  return {
    async add(actor: ReactionActor, messageId: string, reactionName: string): Promise<ReactionChange> {
      // Everyone in the channel sees the name in the message's reactions: it passes the text guards.
      for (const guard of deps.nameGuards ?? []) await guard(actor, reactionName);
      return change(
        messageId,
        async (inTrx, message, now) => {
          const row: ReactionRow = { id: newObjectId(now), message_id: message.id, user_id: actor.userId, reaction_name: reactionName, created_at: now };
          if (!(await inTrx.insertReaction(row))) throw new AppError('alreadyExists', `Reaction ${reactionName} already exists on this message.`);
          await inTrx.addToCount(message.id, reactionName, 1);
          return row;
        },
        'reaction.added',
        actor,
      );
    },

    async remove(actor: ReactionActor, messageId: string, reactionName: string): Promise<ReactionChange> {
      return change(
        messageId,
        async (inTrx, message) => {
          const existing = await inTrx.findReaction(message.id, actor.userId, reactionName);
          if (!existing || !(await inTrx.deleteReaction(existing.id))) throw notFound('Reaction');
          await inTrx.addToCount(message.id, reactionName, -1);
          return existing;
        },
        'reaction.removed',
        actor,
      );
    },

    /** The reactors of a live message, in reaction order, paged by skip + limit or by token. */
    reactors(query: ReactorsQuery): Promise<{ rows: ReactionRow[]; users: UserRow[]; paging: Paging }> {
      return listReactors(store, pageTokens, deps.findUsers, query);
    },

    /** Live messages with the most reactions of one name, most first (limit 1..100, already defaulted). */
    async mostReacted(reactionName: string, limit: number, scope: ChannelScope = 'all'): Promise<Array<{ messageId: string; reactionsCount: number }>> {
      const rows = await store.mostReacted(reactionName, limit, scope);
      return rows.map((row) => ({ messageId: row.message_id, reactionsCount: row.reaction_count }));
    },

    /** Inside the caller's write: the message's channel locked shared (PostgreSQL), and the user a member of it. */
    requireMemberUnderLock(trx: Executor, messageId: string, userId: string): Promise<void> {
      return requireMemberUnderLock(createReactionsStore(trx, dialect), messageId, userId);
    },

    /**
     * For the client API: the live message, provided the user is a member of its channel. Missing or
     * deleted is 404; not a member (never joined, left, or banned) is 403 / 400301.
     */
    async messageForMember(userId: string, messageId: string): Promise<ReactedMessage> {
      const message = liveOrNotFound(await store.findMessage(messageId));
      const member = await deps.findMember(message.channel_id, userId);
      if (member?.membership !== 'member') throw new AppError('permissionDenied', 'Not a member of the channel.');
      return message;
    },
  };
}

export type ReactionsService = ReturnType<typeof createReactionsService>;

/**
 * A reaction on a message already deleted goes without an event (nobody sees the message's reactions
 * any more), its name's count lowered if the row was still there: an erasure removes its user's
 * reactions this way where `remove` answers that the message is gone. In the caller's transaction `trx`.
 */
export async function removeReactionOfDeletedMessage(trx: Executor, reaction: { id: string; messageId: string; reactionName: string }): Promise<void> {
  const store = createReactionsStore(trx, dialectOf(trx));
  if (!(await store.deleteReaction(reaction.id))) return;
  await store.addToCount(reaction.messageId, reaction.reactionName, -1);
}
