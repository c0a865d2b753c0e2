import type { ChannelMembersTable, ChannelsTable } from '../../storage/schema.js';

/** The channel type of a bot's one-to-one conversation with a user (bot.service.ts makes them). */
export const CONVERSATION_TYPE = 'conversation';

/** A channel as stored. */
export type ChannelRow = ChannelsTable;
/** One user's row in a channel: a member, or banned from it. */
export type MemberRow = ChannelMembersTable;
