import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../http/errors.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { type ChannelRow, createChannelsStore, type MemberRow } from '../channels/channels.store.js';

/**
 * Who may read and post in a channel, for the member surfaces (client API, bot API). The admin API
 * does not pass through here: an operator's token acts on any channel. A globally banned user never
 * gets this far (the end-user authenticator answers 403 / 400312 for every request of theirs).
 *
 * The checks read committed state just before the write, not under the channel lock: a ban or mute
 * that commits in the same few milliseconds as a send may let that one send through. Closing a
 * channel is the exception that matters (it deletes everything), and the write itself re-checks it
 * under the lock (messages.store.ts), so nothing is ever written to a closed channel.
 */
export interface ChannelAccess {
  channel: ChannelRow;
  member: MemberRow;
}

export function createSendRules(deps: { db: Executor; dialect: Dialect; clock: Clock }) {
  const channels = createChannelsStore(deps.db, deps.dialect);

  async function load(userId: string, channelId: string): Promise<{ channel: ChannelRow; member: MemberRow | undefined }> {
    const [channel, member] = await Promise.all([channels.findById(channelId), channels.findMember(channelId, userId)]);
    if (!channel) throw notFound('Channel');
    return { channel, member };
  }

  /** Membership, or why not: banned from the channel (400304), not a member (400301). */
  function requireMember(member: MemberRow | undefined): MemberRow {
    if (member?.membership === 'banned') throw new AppError('bannedFromChannel');
    if (member?.membership !== 'member') throw new AppError('permissionDenied', 'Not a member of the channel.');
    return member;
  }

  return {
    /** Reading a channel's messages: members only. A muted member still reads. */
    async requireReader(userId: string, channelId: string): Promise<ChannelAccess> {
      const { channel, member } = await load(userId, channelId);
      return { channel, member: requireMember(member) };
    },

    /**
     * Posting: the channel is open (409 / 400900), the caller is a member and not banned from it,
     * and neither the caller (400302) nor the channel (400303) is muted. Mutes end by themselves:
     * they are end times compared with the clock.
     */
    async requirePoster(userId: string, channelId: string): Promise<ChannelAccess> {
      const { channel, member } = await load(userId, channelId);
      if (channel.is_closed === 1) throw new AppError('conflict', 'Channel is closed.');
      const found = requireMember(member);
      const now = deps.clock.now();
      if (found.mute_until !== null && found.mute_until > now) throw new AppError('userMuted');
      if (channel.mute_until !== null && channel.mute_until > now) throw new AppError('channelMuted');
      return { channel, member: found };
    },
  };
}

export type SendRules = ReturnType<typeof createSendRules>;
