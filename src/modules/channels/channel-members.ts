import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { currentChannel, lockOpenChannel, memberEvent, requireUsers } from './channel-changes.js';
import { requireMayJoin, requireMayLeave } from './channels.policy.js';
import type { ChannelsStore } from './channels.store.js';
import type { ChannelRow, MemberRow } from './channels.types.js';

/** Runs work in one transaction with the channels store on it; within a command's transaction `within`, in that one. */
export type ChannelTransaction = <T>(work: (store: ChannelsStore, trx: Executor) => Promise<T>, within?: Executor) => Promise<T>;

async function refuseBanned(store: ChannelsStore, channelId: string, userIds: readonly string[]): Promise<void> {
  const banned = (await store.findMembers(channelId, userIds)).filter((row) => row.membership === 'banned');
  if (banned.length > 0) {
    throw new AppError('bannedFromChannel', `User is banned from the channel: ${banned.map((row) => row.user_id).join(', ')}.`, {
      detail: banned.map((row) => ({ field: 'userIds', message: `user ${row.user_id} is banned; unban first` })),
    });
  }
}

/** The ids among `userIds` whose row in the channel has this membership. */
async function withMembership(store: ChannelsStore, channelId: string, userIds: readonly string[], membership: 'member' | 'banned'): Promise<string[]> {
  return (await store.findMembers(channelId, userIds)).filter((row) => row.membership === membership).map((row) => row.user_id);
}

/**
 * Who is in a channel: adding, removing, muting, banning and unbanning members, and users joining and
 * leaving by themselves. Each change locks the channel first, so changes of one channel (and its close)
 * run one after another. A change given a command's transaction (`within`: a ban with its lift and
 * audit entry) runs in it.
 */
export function createMembershipActions(deps: { inTransaction: ChannelTransaction; clock: Clock }) {
  const { inTransaction, clock } = deps;

  return {
    async addUsers(channelId: string, userIds: string[]): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        await requireUsers(store, userIds);
        await refuseBanned(store, channelId, userIds);
        const unique = [...new Set(userIds)];
        const already = new Set((await store.findMembers(channelId, unique)).map((row) => row.user_id));
        const added = await store.insertMembers(channelId, unique, now);
        await store.addToMemberCount(channelId, added, now);
        const newcomers = unique.filter((id) => !already.has(id));
        if (newcomers.length > 0) await appendEvents(trx, [memberEvent('member.added', await currentChannel(store, channelId), newcomers, null, now)], now);
      });
    },

    /**
     * The user joins a channel open to joining (channels.policy.ts, requireMayJoin), told to its members
     * as member.added; a member already is left as they are, with no event. Answers the channel and the
     * user's membership.
     */
    async join(userId: string, channelId: string): Promise<{ channel: ChannelRow; member: MemberRow }> {
      const now = clock.now();
      return inTransaction(async (store, trx) => {
        const channel = await store.lockById(channelId);
        requireMayJoin(channel, channel === undefined ? undefined : await store.findMember(channelId, userId));
        const added = await store.insertMembers(channelId, [userId], now);
        await store.addToMemberCount(channelId, added, now);
        const after = await currentChannel(store, channelId);
        if (added > 0) await appendEvents(trx, [memberEvent('member.added', after, [userId], userId, now)], now);
        const member = await store.findMember(channelId, userId);
        if (member === undefined) throw new AppError('unexpected');
        return { channel: after, member };
      });
    },

    /** The user leaves a channel they are a member of (channels.policy.ts, requireMayLeave), told as member.removed. Answers the channel after. */
    async leave(userId: string, channelId: string): Promise<ChannelRow> {
      const now = clock.now();
      return inTransaction(async (store, trx) => {
        const channel = await store.lockById(channelId);
        requireMayLeave(channel, channel === undefined ? undefined : await store.findMember(channelId, userId));
        const removed = await store.deleteMembers(channelId, [userId], 'member');
        await store.addToMemberCount(channelId, -removed, now);
        const after = await currentChannel(store, channelId);
        if (removed > 0) await appendEvents(trx, [memberEvent('member.removed', after, [userId], userId, now)], now);
        return after;
      });
    },

    async removeUsers(channelId: string, userIds: string[], within?: Executor): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const leaving = await withMembership(store, channelId, unique, 'member');
        const removed = await store.deleteMembers(channelId, unique, 'member');
        await store.addToMemberCount(channelId, -removed, now);
        if (leaving.length > 0) await appendEvents(trx, [memberEvent('member.removed', await currentChannel(store, channelId), leaving, null, now)], now);
      }, within);
    },

    async muteUsers(channelId: string, userIds: string[], mutePeriod: number, within?: Executor): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const members = new Set(await withMembership(store, channelId, unique, 'member'));
        const outsiders = unique.filter((id) => !members.has(id));
        if (outsiders.length > 0) {
          throw new AppError('notFound', `Not a member of the channel: ${outsiders.join(', ')}.`, {
            detail: outsiders.map((id) => ({ field: 'userIds', message: `user ${id} is not a member` })),
          });
        }
        await store.setMembersMute(channelId, unique, mutePeriod > 0 ? now + mutePeriod : null, now);
      }, within);
    },

    async ban(channelId: string, userIds: string[], within?: Executor): Promise<void> {
      const now = clock.now();
      await inTransaction(async (store, trx) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        await requireUsers(store, unique);
        const leaving = await withMembership(store, channelId, unique, 'member');
        const converted = await store.convertMembersToBanned(channelId, unique, now);
        await store.addToMemberCount(channelId, -converted, now);
        await store.insertBanned(channelId, unique, now);
        if (leaving.length > 0) await appendEvents(trx, [memberEvent('member.removed', await currentChannel(store, channelId), leaving, null, now)], now);
      }, within);
    },

    async unban(channelId: string, userIds: string[], within?: Executor): Promise<void> {
      await inTransaction(async (store) => {
        await lockOpenChannel(store, channelId);
        const unique = [...new Set(userIds)];
        const banned = new Set(await withMembership(store, channelId, unique, 'banned'));
        const notBanned = unique.filter((id) => !banned.has(id));
        if (notBanned.length > 0) {
          throw new AppError('alreadyUnbanned', `User is not banned from the channel: ${notBanned.join(', ')}.`, {
            detail: notBanned.map((id) => ({ field: 'userIds', message: `user ${id} is not banned` })),
          });
        }
        await store.deleteMembers(channelId, unique, 'banned');
      }, within);
    },
  };
}
