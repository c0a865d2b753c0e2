import type { ChannelScope } from './channels.policy.js';
import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { PageTokens } from '../../shared/paging.js';
import { MAX_JSON_BYTES } from '../../shared/schemas.js';
import { type Dialect, dialectOf, type Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { emitChannelUpdated, lockOpenChannel, memberEvent, requireUsers } from './channel-changes.js';
import { type ChannelPage, type ChannelQueryInput, listChannels } from './channel-list.js';
import { listChannelMembers, type MemberListInput, type MemberPage } from './channel-member-list.js';
import { type ChannelTransaction, createMembershipActions } from './channel-members.js';
import { createChannelsStore } from './channels.store.js';
import { type ChannelRow, CONVERSATION_TYPE, type MemberRow } from './channels.types.js';

export type { ChannelQueryInput } from './channel-list.js';

/** The calling actor, as far as channels care. */
export interface Actor {
  userId: string;
}

/** Former members named per `member.removed` event when a channel closes. */
const CLOSE_REMOVAL_SLICE = 500;

/** Work other modules attach to closing a channel, run inside the same transaction. */
export type ChannelCloseHook = (trx: Executor, channelId: string, now: number) => Promise<void>;

/** Longest mute accepted: ten years, in milliseconds. */
export const MAX_MUTE_PERIOD_MS = 10 * 365 * 24 * 3600 * 1000;

export interface CreateChannelInput {
  channelId: string;
  type: string;
  displayName?: string;
  metadata?: Record<string, unknown>;
  tags?: string[];
  userIds?: string[];
  /** Whether users may join it by themselves; default false. */
  joinable?: boolean;
}

/** Settings of a channel an update may change; absent ones stay. */
export interface ChannelSettings {
  displayName?: string;
  joinable?: boolean;
}

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

/** A new channel's row: open, empty, active now. */
function newChannelRow(input: CreateChannelInput, metadata: string, tags: string[], now: number): ChannelRow {
  return {
    id: input.channelId,
    type: input.type,
    display_name: input.displayName ?? null,
    metadata,
    tags: JSON.stringify(tags),
    is_closed: 0,
    joinable: input.joinable === true ? 1 : 0,
    mute_until: null,
    member_count: 0,
    message_count: 0,
    last_segment: 0,
    last_activity: now,
    created_at: now,
    updated_at: now,
  };
}

/** The removals naming a closed channel's former members, in slices, so no frame carries a huge member list. */
function removalsOnClose(closed: ChannelRow, former: string[], now: number) {
  const removals = [];
  for (let start = 0; start < former.length; start += CLOSE_REMOVAL_SLICE) {
    removals.push(memberEvent('member.removed', closed, former.slice(start, start + CLOSE_REMOVAL_SLICE), null, now));
  }
  return removals;
}

/*
 * Writes other modules make to channels rows, in their own transactions when they pass their `trx`.
 */

/** A delete in the messages module moves the channel's live message count, in the delete's transaction. */
export function addToChannelMessageCount(trx: Executor, channelId: string, delta: number): Promise<void> {
  return createChannelsStore(trx, dialectOf(trx)).addToMessageCount(channelId, delta);
}

/** Closing deletes every message of the channel (a close hook of the messages module): none is live. */
export function clearChannelMessageCount(trx: Executor, channelId: string): Promise<void> {
  return createChannelsStore(trx, dialectOf(trx)).update(channelId, { message_count: 0 });
}

/** Moves a member's read marker forward only (the client API); answers the marker in place, null for a non-member. */
export function advanceReadMarker(db: Executor, channelId: string, userId: string, segment: number, now: number): Promise<number | null> {
  return createChannelsStore(db, dialectOf(db)).advanceReadMarker(channelId, userId, segment, now);
}

export function createChannelsService(deps: { db: Executor; dialect: Dialect; clock: Clock; pageTokens: PageTokens; closeHooks: ChannelCloseHook[] }) {
  const { db, dialect, clock, pageTokens } = deps;
  const channels = createChannelsStore(db, dialect);
  const inTransaction: ChannelTransaction = (work, within) => runTransaction(within ?? db, (trx) => work(createChannelsStore(trx, dialect), trx));

  return {
    /** A page of channels; `scope` leaves bots' conversations out for those who may not see them (channels.policy.ts). */
    query(actor: Actor, input: ChannelQueryInput, scope: ChannelScope = 'all'): Promise<ChannelPage> {
      return listChannels(channels, pageTokens, actor, input, scope);
    },

    async create(actor: Actor, input: CreateChannelInput): Promise<{ channel: ChannelRow; member: MemberRow | undefined }> {
      const now = clock.now();
      const metadata = jsonWithinLimit(input.metadata, 'metadata');
      const tags = [...new Set(input.tags ?? [])];
      const userIds = [...new Set([actor.userId, ...(input.userIds ?? [])])];
      return inTransaction(async (store, trx) => {
        await requireUsers(store, userIds);
        if (!(await store.insert(newChannelRow(input, metadata, tags, now)))) throw new AppError('alreadyExists', `Channel ${input.channelId} already exists.`);
        await store.replaceTags(input.channelId, tags);
        const added = await store.insertMembers(input.channelId, userIds, now);
        await store.addToMemberCount(input.channelId, added, now);
        const channel = await store.findById(input.channelId);
        if (!channel) throw new AppError('unexpected');
        await appendEvents(trx, [memberEvent('member.added', channel, userIds, actor.userId, now)], now);
        return { channel, member: await store.findMember(input.channelId, actor.userId) };
      });
    },

    find(channelId: string): Promise<ChannelRow | undefined> {
      return channels.findById(channelId);
    },

    /** One channel, open or closed, with the actor's row in it (if any); an unknown channel is a 404. */
    async get(actor: Actor, channelId: string): Promise<{ channel: ChannelRow; member: MemberRow | undefined }> {
      const channel = await channels.findById(channelId);
      if (!channel) throw notFound('Channel');
      return { channel, member: await channels.findMember(channelId, actor.userId) };
    },

    /** A page of the channel's members and banned users with their accounts; an unknown channel is a 404. */
    members(channelId: string, input: MemberListInput): Promise<MemberPage> {
      return listChannelMembers(channels, pageTokens, channelId, input);
    },

    /** The user's row in the channel (member or banned), if any; read in a command's transaction `within` where given. */
    findMember(channelId: string, userId: string, within?: Executor): Promise<MemberRow | undefined> {
      return (within ? createChannelsStore(within, dialect) : channels).findMember(channelId, userId);
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

    /** Changes the settings given (display name, joinable) and tells the members as channel.updated; a closed channel is a 409. */
    async update(channelId: string, settings: ChannelSettings): Promise<ChannelRow> {
      return inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const now = clock.now();
        await store.update(channelId, {
          ...(settings.displayName === undefined ? {} : { display_name: settings.displayName }),
          ...(settings.joinable === undefined ? {} : { joinable: settings.joinable ? 1 : 0 }),
          updated_at: now,
        });
        return emitChannelUpdated(store, trx, channelId, now);
      });
    },

    ...createMembershipActions({ inTransaction, clock }),

    async mute(channelId: string, mutePeriod: number): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        await store.update(channelId, { mute_until: mutePeriod > 0 ? now + mutePeriod : null, updated_at: now });
        await emitChannelUpdated(store, trx, channelId, now);
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
        await appendEvents(trx, removalsOnClose(closed, former, now), now);
      });
    },
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;

/**
 * An erasure drops the user's row in a closed (or missing) channel with `db` (its transaction, where
 * it runs one): removeUsers refuses such a channel, whose member count and events concern no one.
 */
export function dropMemberRowOfClosedChannel(db: Executor, channelId: string, userId: string): Promise<void> {
  return createChannelsStore(db, dialectOf(db)).deleteMemberRow(channelId, userId);
}

/**
 * An erasure drops the rows of the user that no count includes, once it has left every open channel:
 * the bans that kept them out, and rows of channels closed meanwhile. With `db`, as dropMemberRowOfClosedChannel.
 */
export function dropMembershipLeftoversOf(db: Executor, userId: string): Promise<void> {
  return createChannelsStore(db, dialectOf(db)).deleteRowsOf(userId);
}
