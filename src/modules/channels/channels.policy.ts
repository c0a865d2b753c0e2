import { AppError, notFound } from '../../shared/errors.js';
import { type Actor, holdsEveryRight } from '../roles/admin-actor.js';
import { CONVERSATION_TYPE, type ChannelRow, type MemberRow } from './channels.types.js';

/**
 * Which channels an actor may see at all. A bot's conversation with a user holds what the person told
 * the bot: admin tokens and network admins see it; to a moderator (console or client API) it does not
 * exist, whatever their roles, so every read of it answers as for a missing channel or message and every
 * list leaves it out. Its id follows from the two user ids, so hiding it must not depend on the id.
 */
export function maySeeChannel(actor: Actor, channel: Pick<ChannelRow, 'type'>): boolean {
  return holdsEveryRight(actor) || channel.type !== CONVERSATION_TYPE;
}

/** What lists show an actor: every channel, or all but bots' conversations. */
export type ChannelScope = 'all' | 'withoutConversations';

export const channelScopeOf = (actor: Actor): ChannelScope => (holdsEveryRight(actor) ? 'all' : 'withoutConversations');

/** Whether a list of this scope shows the channel (an unknown channel shows nothing of its own). */
export const shownIn = (scope: ChannelScope, channel: Pick<ChannelRow, 'type'> | undefined): boolean =>
  scope === 'all' || (channel !== undefined && channel.type !== CONVERSATION_TYPE);

/**
 * Whether a user may join a channel by themselves (the client API's join); refuses by throwing. An
 * unknown channel and a bot's conversation are a 404 alike; a closed channel a 409; a user banned from
 * the channel 403 / 400304; a channel not open to joining (`joinable` off) 403 / 400301. A member may
 * join again: nothing changes.
 */
export function requireMayJoin(channel: ChannelRow | undefined, member: MemberRow | undefined): asserts channel is ChannelRow {
  if (channel === undefined || channel.type === CONVERSATION_TYPE) throw notFound('Channel');
  if (channel.is_closed === 1) throw new AppError('conflict', 'Channel is closed.');
  if (member?.membership === 'banned') throw new AppError('bannedFromChannel');
  if (member?.membership !== 'member' && channel.joinable !== 1) throw new AppError('permissionDenied', 'The channel is not open to joining.');
}

/**
 * Whether a user may leave a channel by themselves; refuses by throwing. Any member of a standard
 * channel may, whether or not it is open to joining; for anyone else there is no membership to end
 * (404), nor in a bot's conversation, which answers as a missing channel does.
 */
export function requireMayLeave(channel: ChannelRow | undefined, member: MemberRow | undefined): asserts channel is ChannelRow {
  if (channel === undefined || channel.type === CONVERSATION_TYPE) throw notFound('Channel');
  if (member?.membership !== 'member') throw new AppError('notFound', 'Not a member of the channel.');
}
