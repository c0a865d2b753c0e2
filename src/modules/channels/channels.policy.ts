import { type Actor, holdsEveryRight } from '../roles/admin-actor.js';
import { CONVERSATION_TYPE, type ChannelRow } from './channels.types.js';

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
