import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { type ChannelRow, CONVERSATION_TYPE, type MemberRow } from '../channels/channels.types.js';
import { createMessageLookups } from './lookups.store.js';

/**
 * Who may read and post in a channel, for the member surfaces (client API, bot API). The admin API
 * does not pass through here: an operator's token acts on any channel. A globally banned user never
 * gets this far (the end-user authenticator answers 403 / 400312 for every request of theirs).
 *
 * `requirePoster` answers early (before an upload is read, before a bot's first message opens a
 * conversation); the message write then checks the same rules again under the channel lock
 * (`posterRefusal`, in messages.store.ts and messages.sqlite.ts), so a ban, mute or removal that
 * commits between the two is seen: nothing is written that the rules refuse at commit time.
 */
/** Why a member surface may not post: banned from the channel, not a member, muted, channel muted. */
export type PosterRefusal = 'bannedFromChannel' | 'notMember' | 'userMuted' | 'channelMuted';

/**
 * The posting rules on an open channel, as a pure function of the rows (also run under the channel
 * lock by the message writes). Mutes are end times compared with `now`.
 */
export function posterRefusal(
  channel: { mute_until: number | null },
  member: { membership: string; mute_until: number | null } | undefined,
  now: number,
): PosterRefusal | null {
  if (member?.membership === 'banned') return 'bannedFromChannel';
  if (member?.membership !== 'member') return 'notMember';
  if (member.mute_until !== null && member.mute_until > now) return 'userMuted';
  if (channel.mute_until !== null && channel.mute_until > now) return 'channelMuted';
  return null;
}

/** The answer to a refusal: 403 / 400304, 400301, 400302, 400303. */
export function posterError(refusal: PosterRefusal): AppError {
  if (refusal === 'notMember') return new AppError('permissionDenied', 'Not a member of the channel.');
  return new AppError(refusal);
}

/** Whether the user is the bot or the user of a conversation, as its metadata records them. */
function isPartyOf(channel: ChannelRow, userId: string): boolean {
  try {
    const parties = JSON.parse(channel.metadata) as { botId?: unknown; userId?: unknown } | null;
    return parties !== null && (parties.botId === userId || parties.userId === userId);
  } catch {
    return false;
  }
}

export interface ChannelAccess {
  channel: ChannelRow;
  member: MemberRow;
}

export function createSendRules(deps: { db: Executor; dialect: Dialect; clock: Clock }) {
  const lookups = createMessageLookups(deps.db);

  async function load(userId: string, channelId: string): Promise<{ channel: ChannelRow; member: MemberRow | undefined }> {
    const [channel, member] = await Promise.all([lookups.channel(channelId), lookups.member(channelId, userId)]);
    // A conversation's id is derived from its bot and user (bot.service.ts conversationIdOf), so to
    // anyone else its existence would tell who that bot has talked to: it is not found for them. Its
    // two parties know it, so they are told what others in a group are (closed 409, removed 403),
    // also once a close or an operator took their member row away.
    if (!channel || (channel.type === CONVERSATION_TYPE && member === undefined && !isPartyOf(channel, userId))) throw notFound('Channel');
    return { channel, member };
  }

  /** Membership, or why not: banned from the channel (400304), not a member (400301). */
  function requireMember(member: MemberRow | undefined): MemberRow {
    if (member?.membership === 'banned') throw posterError('bannedFromChannel');
    if (member?.membership !== 'member') throw posterError('notMember');
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
      const refusal = posterRefusal(channel, member, deps.clock.now());
      if (refusal !== null) throw posterError(refusal);
      return { channel, member: member as MemberRow };
    },
  };
}

export type SendRules = ReturnType<typeof createSendRules>;
