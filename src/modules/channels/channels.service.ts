import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../http/errors.js';
import { canonicalList, filterFields, filtersOfPage, isStringList, type PageTokens, type Paging } from '../../http/paging.js';
import { MAX_JSON_BYTES } from '../../http/schemas.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { appendEvents } from '../../events/outbox.js';
import { runTransaction } from '../../storage/transactions.js';
import { createUsersStore } from '../users/users.store.js';
import { presentChannel } from './channels.present.js';
import { type ChannelCursor, type ChannelRow, CONVERSATION_TYPE, createChannelsStore, type MemberRow } from './channels.store.js';

/** The calling actor, as far as channels care. */
export interface Actor {
  userId: string;
}

/** Work other modules attach to closing a channel, run inside the same transaction. */
/** Former members named per `member.removed` event when a channel closes. */
const CLOSE_REMOVAL_SLICE = 500;

export type ChannelCloseHook = (trx: Executor, channelId: string, now: number) => Promise<void>;

/** Longest mute accepted: ten years, in milliseconds. */
export const MAX_MUTE_PERIOD_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ChannelQueryInput {
  filter?: 'all' | 'member' | 'notMember';
  userId?: string;
  tags?: string[];
  excludeTags?: string[];
  options?: { skip?: number; limit?: number; token?: string };
}

export interface CreateChannelInput {
  channelId: string;
  type: string;
  displayName?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  userIds?: string[];
}

/** A page token: the row to continue from, the way, the page size and the filters' key. */
interface CursorToken extends Record<string, unknown> {
  c: number;
  i: string;
  d: 'n' | 'p';
  n: number;
  f: string;
  q?: unknown;
}

/** The filters of a channel list, in the canonical form its tokens carry. */
interface ChannelFilters extends Record<string, unknown> {
  u: string | null;
  f: string;
  a: string[];
  x: string[];
}

const NO_CHANNEL_FILTERS: ChannelFilters = { u: null, f: 'all', a: [], x: [] };
const isChannelFilters = (value: unknown): value is ChannelFilters => {
  const v = value as Partial<ChannelFilters> | null;
  return v !== null && typeof v === 'object' && (v.u === null || typeof v.u === 'string') && (v.f === 'all' || v.f === 'member' || v.f === 'notMember') && isStringList(v.a) && isStringList(v.x);
};

const isCursorToken = (value: Record<string, unknown>): value is CursorToken =>
  typeof value.c === 'number' && typeof value.i === 'string' && (value.d === 'n' || value.d === 'p') && Number.isInteger(value.n) && typeof value.f === 'string';

export function jsonWithinLimit(value: unknown, field: string): string {
  let text: string;
  try {
    text = JSON.stringify(value ?? {});
  } catch {
    // Nested deeper than the serializer's stack (a few thousand levels fit in 100 KB of body).
    throw new AppError('parameters', `${field} is nested too deeply.`, { detail: [{ field, message: 'is nested too deeply' }] });
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_JSON_BYTES) {
    throw new AppError('parameters', `${field} is larger than 100 KB.`, { detail: [{ field, message: 'must be at most 100 KB as JSON' }] });
  }
  return text;
}

export function createChannelsService(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  pageTokens: PageTokens;
  closeHooks: ChannelCloseHook[];
}) {
  const { db, dialect, clock, pageTokens } = deps;
  const channels = createChannelsStore(db, dialect);

  function inTransaction<T>(work: (store: ReturnType<typeof createChannelsStore>, trx: Executor) => Promise<T>): Promise<T> {
    return runTransaction(db, (trx) => work(createChannelsStore(trx, dialect), trx));
  }

  /** Loads and locks an open channel, or explains why the change cannot happen. */
  async function lockOpenChannel(store: ReturnType<typeof createChannelsStore>, channelId: string): Promise<ChannelRow> {
    const channel = await store.lockById(channelId);
    if (!channel) throw notFound('Channel');
    if (channel.is_closed === 1) throw new AppError('conflict', 'Channel is closed.');
    return channel;
  }

  async function requireUsers(trx: Executor, userIds: readonly string[]): Promise<void> {
    const unique = [...new Set(userIds)];
    const found = new Set((await createUsersStore(trx).findByIds(unique)).map((user) => user.id));
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new AppError('notFound', `User not found: ${missing.join(', ')}.`, {
        detail: missing.map((id) => ({ field: 'userIds', message: `user ${id} does not exist` })),
      });
    }
  }

  async function refuseBanned(store: ReturnType<typeof createChannelsStore>, channelId: string, userIds: readonly string[]): Promise<void> {
    const banned = (await store.findMembers(channelId, userIds)).filter((row) => row.membership === 'banned');
    if (banned.length > 0) {
      throw new AppError('bannedFromChannel', `User is banned from the channel: ${banned.map((row) => row.user_id).join(', ')}.`, {
        detail: banned.map((row) => ({ field: 'userIds', message: `user ${row.user_id} is banned; unban first` })),
      });
    }
  }

  async function currentChannel(store: ReturnType<typeof createChannelsStore>, channelId: string): Promise<ChannelRow> {
    const channel = await store.findById(channelId);
    if (!channel) throw notFound('Channel');
    return channel;
  }

  function memberEvent(type: 'member.added' | 'member.removed', channel: ChannelRow, userIds: string[], actorId: string | null, now: number) {
    return { type, channelId: channel.id, userId: actorId, data: { channelId: channel.id, userIds, channel: presentChannel(channel, now) } };
  }

  async function emitChannelUpdated(store: ReturnType<typeof createChannelsStore>, trx: Executor, channelId: string, now: number): Promise<ChannelRow> {
    const channel = await currentChannel(store, channelId);
    await appendEvents(trx, [{ type: 'channel.updated', channelId, data: { channel: presentChannel(channel, now) } }], now);
    return channel;
  }

  return {
    async query(actor: Actor, input: ChannelQueryInput): Promise<{ rows: ChannelRow[]; members: Map<string, MemberRow>; paging: Paging }> {
      let limit = input.options?.limit ?? 10;
      let after: ChannelCursor | null = null;
      let before: ChannelCursor | null = null;
      const requested: ChannelFilters = { u: input.userId ?? null, f: input.filter ?? 'all', a: canonicalList(input.tags), x: canonicalList(input.excludeTags) };
      const token = input.options?.token ? pageTokens.decode(input.options.token, isCursorToken) : null;
      // A token continues its own list: sent alone it brings its filters, sent with others it is refused.
      const filters = filtersOfPage(requested, NO_CHANNEL_FILTERS, token, isChannelFilters);
      if (token) {
        // The page size goes on as it was, unless the request names one.
        limit = input.options?.limit ?? token.n;
        const cursor = { createdAt: token.c, id: token.i };
        if (token.d === 'n') after = cursor;
        else before = cursor;
      }
      const filter = filters.f;
      // `userId`: that user's channels; `filter`: relative to the calling admin. Both may apply at once.
      const membershipConditions = [
        ...(filters.u ? [{ userId: filters.u, isMember: true }] : []),
        ...(filter === 'all' ? [] : [{ userId: actor.userId, isMember: filter === 'member' }]),
      ];
      const fetched = await channels.listPage({
        memberships: membershipConditions,
        anyTags: filters.a,
        excludeTags: filters.x,
        limit,
        skip: input.options?.skip ?? 0,
        after,
        before,
      });
      const hasMore = fetched.length > limit;
      // Going backwards, the extra row is the oldest-first list's head; forwards, its tail.
      const rows = before ? fetched.slice(hasMore ? 1 : 0) : fetched.slice(0, limit);
      const carried = filterFields(filters);
      const cursorOf = (row: ChannelRow, d: 'n' | 'p') => pageTokens.encode({ c: row.created_at, i: row.id, d, n: limit, ...carried });
      const first = rows[0];
      const last = rows[rows.length - 1];
      const paging: Paging = {
        next: last && (before !== null || hasMore) ? cursorOf(last, 'n') : null,
        prev: first && (before !== null ? hasMore : after !== null || (input.options?.skip ?? 0) > 0) ? cursorOf(first, 'p') : null,
      };
      const memberOf = filters.u ?? actor.userId;
      const memberships = await channels.findMembershipsOf(memberOf, rows.map((row) => row.id));
      return { rows, members: new Map(memberships.map((row) => [row.channel_id, row])), paging };
    },

    async create(actor: Actor, input: CreateChannelInput): Promise<{ channel: ChannelRow; member: MemberRow | undefined }> {
      const now = clock.now();
      const metadata = jsonWithinLimit(input.metadata, 'metadata');
      const tags = [...new Set(input.tags ?? [])];
      const userIds = [...new Set([actor.userId, ...(input.userIds ?? [])])];
      return inTransaction(async (store, trx) => {
        await requireUsers(trx, userIds);
        const created = await store.insert({
          id: input.channelId,
          type: input.type,
          display_name: input.displayName ?? null,
          metadata,
          tags: JSON.stringify(tags),
          is_closed: 0,
          mute_until: null,
          member_count: 0,
          message_count: 0,
          last_segment: 0,
          last_activity: now,
          created_at: now,
          updated_at: now,
        });
        if (!created) throw new AppError('alreadyExists', `Channel ${input.channelId} already exists.`);
        await store.replaceTags(input.channelId, tags);
        const added = await store.insertMembers(input.channelId, userIds, now);
        await store.addToMemberCount(input.channelId, added, now);
        const channel = await store.findById(input.channelId);
        if (!channel) throw new AppError('unexpected');
        await appendEvents(trx, [memberEvent('member.added', channel, userIds, actor.userId, now)], now);
        return { channel, member: await store.findMember(input.channelId, actor.userId) };
      });
    },

    /** Whether the channel is a bot's conversation with a user (kept out of moderation). */
    async isConversation(channelId: string): Promise<boolean> {
      return (await channels.findById(channelId))?.type === CONVERSATION_TYPE;
    },

    async setDisplayName(channelId: string, displayName: string): Promise<ChannelRow> {
      return inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const now = clock.now();
        await store.update(channelId, { display_name: displayName, updated_at: now });
        return emitChannelUpdated(store, trx, channelId, now);
      });
    },

    async addUsers(channelId: string, userIds: string[]): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        await requireUsers(trx, userIds);
        await refuseBanned(store, channelId, userIds);
        const unique = [...new Set(userIds)];
        const already = new Set((await store.findMembers(channelId, unique)).map((row) => row.user_id));
        const added = await store.insertMembers(channelId, unique, now);
        await store.addToMemberCount(channelId, added, now);
        const newcomers = unique.filter((id) => !already.has(id));
        if (newcomers.length > 0) await appendEvents(trx, [memberEvent('member.added', await currentChannel(store, channelId), newcomers, null, now)], now);
      });
    },

    async removeUsers(channelId: string, userIds: string[]): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const leaving = (await store.findMembers(channelId, unique)).filter((row) => row.membership === 'member').map((row) => row.user_id);
        const removed = await store.deleteMembers(channelId, unique, 'member');
        await store.addToMemberCount(channelId, -removed, now);
        if (leaving.length > 0) await appendEvents(trx, [memberEvent('member.removed', await currentChannel(store, channelId), leaving, null, now)], now);
      });
    },

    async mute(channelId: string, mutePeriod: number): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        await store.update(channelId, { mute_until: mutePeriod > 0 ? now + mutePeriod : null, updated_at: now });
        await emitChannelUpdated(store, trx, channelId, now);
      });
    },

    async muteUsers(channelId: string, userIds: string[], mutePeriod: number): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const members = new Set((await store.findMembers(channelId, unique)).filter((row) => row.membership === 'member').map((row) => row.user_id));
        const outsiders = unique.filter((id) => !members.has(id));
        if (outsiders.length > 0) {
          throw new AppError('notFound', `Not a member of the channel: ${outsiders.join(', ')}.`, {
            detail: outsiders.map((id) => ({ field: 'userIds', message: `user ${id} is not a member` })),
          });
        }
        await store.setMembersMute(channelId, unique, mutePeriod > 0 ? now + mutePeriod : null, now);
      });
    },

    async ban(channelId: string, userIds: string[]): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        await requireUsers(trx, unique);
        const leaving = (await store.findMembers(channelId, unique)).filter((row) => row.membership === 'member').map((row) => row.user_id);
        const converted = await store.convertMembersToBanned(channelId, unique, now);
        await store.addToMemberCount(channelId, -converted, now);
        await store.insertBanned(channelId, unique, now);
        if (leaving.length > 0) await appendEvents(trx, [memberEvent('member.removed', await currentChannel(store, channelId), leaving, null, now)], now);
      });
    },

    async unban(channelId: string, userIds: string[]): Promise<void> {
      await inTransaction(async (store) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const banned = new Set((await store.findMembers(channelId, unique)).filter((row) => row.membership === 'banned').map((row) => row.user_id));
        const notBanned = unique.filter((id) => !banned.has(id));
        if (notBanned.length > 0) {
          throw new AppError('alreadyUnbanned', `User is not banned from the channel: ${notBanned.join(', ')}.`, {
            detail: notBanned.map((id) => ({ field: 'userIds', message: `user ${id} is not banned` })),
          });
        }
        await store.deleteMembers(channelId, unique, 'banned');
      });
    },

    /** Irreversible: members leave, messages go (through the close hooks), later changes are 409. */
    async close(channelId: string): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const former = await store.deleteAllMembers(channelId);
        await store.update(channelId, { is_closed: 1, member_count: 0, mute_until: null, updated_at: now });
        for (const hook of deps.closeHooks) await hook(trx, channelId, now);
        // Sockets learn of the close from this event (isClosed true) and drop the channel.
        const closed = await emitChannelUpdated(store, trx, channelId, now);
        // And each former member from a removal naming them: a stream resumed after the close replays
        // the removals that name its user, while the channel's own events are replayed to members only.
        // In slices, so no frame carries a huge channel's whole member list.
        const removals = [];
        for (let start = 0; start < former.length; start += CLOSE_REMOVAL_SLICE) {
          removals.push(memberEvent('member.removed', closed, former.slice(start, start + CLOSE_REMOVAL_SLICE), null, now));
        }
        await appendEvents(trx, removals, now);
      });
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
