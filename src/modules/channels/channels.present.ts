import { type Static, Type } from '@sinclair/typebox';
import type { ChannelMembersTable, ChannelsTable } from '../../storage/schema.js';
import { IsoTime, Nullable, OpenObject } from '../../shared/schemas.js';
import { iso, parseJson } from '../../shared/values.js';

/** Storage rows -> the channel and channelUser records of docs/contract.md, Records. */

/**
 * A JSON object of counts keyed by names users choose (reactions), with no prototype: `__proto__` or
 * `constructor` is then a key like any other, where a plain object would read or replace its own.
 */
export function parseCounts(text: string): Record<string, number> {
  return Object.assign(Object.create(null) as Record<string, number>, parseJson<Record<string, number>>(text, {}));
}

export const ChannelRecord = Type.Object(
  {
    channelId: Type.String(),
    type: Type.String({ description: "'standard' for channels made through the API; 'conversation' for a bot's one-to-one channel with a user" }),
    displayName: Type.String({ description: "'' when the channel has none" }),
    metadata: OpenObject("The operator's own data about the channel"),
    tags: Type.Array(Type.String()),
    isMuted: Type.Boolean({ description: 'Whether the channel takes no messages; a mute ends by itself at muteTimeout' }),
    muteTimeout: Nullable(IsoTime('When the mute ends'), 'When the mute ends; null while the channel is not muted'),
    isClosed: Type.Boolean({ description: 'A closed channel takes no new messages or members' }),
    joinable: Type.Boolean({ description: 'Whether users may join the channel by themselves (POST /client/v1/channels/:channelId/join)' }),
    memberCount: Type.Integer(),
    messageCount: Type.Integer({ description: 'Messages in the channel that are not deleted' }),
    lastActivity: Nullable(IsoTime('The latest message'), 'When the latest message was sent (at first, when the channel was created)'),
    createdAt: IsoTime('When the channel was created'),
    updatedAt: IsoTime('When the channel last changed'),
  },
  {
    description: 'A channel (docs/contract.md, Records)',
    examples: [
      {
        channelId: 'general',
        type: 'standard',
        displayName: 'General',
        metadata: { topic: 'Company-wide announcements' },
        tags: ['company'],
        isMuted: false,
        muteTimeout: null,
        isClosed: false,
        joinable: false,
        memberCount: 42,
        messageCount: 1280,
        lastActivity: '2025-03-14T09:26:53.589Z',
        createdAt: '2025-01-06T08:00:00.000Z',
        updatedAt: '2025-03-02T16:45:10.000Z',
      },
    ],
  },
);
export type ChannelRecord = Static<typeof ChannelRecord>;

export const ChannelUserRecord = Type.Object(
  {
    userId: Type.String(),
    channelId: Type.String(),
    membership: Type.String({ description: "'member' or 'banned'" }),
    isBanned: Type.Boolean(),
    isMuted: Type.Boolean({ description: 'Whether the user may not send in the channel; a mute ends by itself at muteTimeout' }),
    muteTimeout: Nullable(IsoTime("When the user's mute ends"), "When the user's mute ends; null while the user is not muted"),
    roles: Type.Array(Type.String(), { description: "The user's roles inside this channel (publicIds of roles)" }),
    readToSegment: Type.Integer({ description: 'The channelSegment the user has read up to; 0 before reading any' }),
    lastActivity: Nullable(IsoTime("The user's latest message in the channel"), 'When the user last sent in the channel; null before the first'),
    createdAt: IsoTime('When the user joined the channel'),
    updatedAt: IsoTime('When the membership last changed'),
  },
  {
    description: "One user's membership of one channel (docs/contract.md, Records)",
    examples: [
      {
        userId: 'alice',
        channelId: 'general',
        membership: 'member',
        isBanned: false,
        isMuted: false,
        muteTimeout: null,
        roles: ['moderator'],
        readToSegment: 1275,
        lastActivity: '2025-03-14T09:20:02.114Z',
        createdAt: '2025-01-06T08:00:00.000Z',
        updatedAt: '2025-03-14T09:21:40.532Z',
      },
    ],
  },
);
export type ChannelUserRecord = Static<typeof ChannelUserRecord>;

/** A mute ends by itself when its time passes; no job has to clear it. */
function muteState(muteUntil: number | null, now: number): { isMuted: boolean; muteTimeout: string | null } {
  const isMuted = muteUntil !== null && muteUntil > now;
  return { isMuted, muteTimeout: isMuted ? iso(muteUntil) : null };
}

export function presentChannel(row: ChannelsTable, now: number): ChannelRecord {
  return {
    channelId: row.id,
    type: row.type,
    displayName: row.display_name ?? '',
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
    tags: parseJson<string[]>(row.tags, []),
    ...muteState(row.mute_until, now),
    isClosed: row.is_closed === 1,
    joinable: row.joinable === 1,
    memberCount: row.member_count,
    messageCount: row.message_count,
    lastActivity: iso(row.last_activity),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentChannelUser(row: ChannelMembersTable, now: number): ChannelUserRecord {
  const banned = row.membership === 'banned';
  return {
    userId: row.user_id,
    channelId: row.channel_id,
    membership: row.membership,
    isBanned: banned,
    ...muteState(row.mute_until, now),
    roles: parseJson<string[]>(row.roles, []),
    readToSegment: row.read_to_segment,
    lastActivity: iso(row.last_activity),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
