import type { ChannelMembersTable, ChannelsTable } from '../../storage/schema.js';

/** Storage rows -> the channel and channelUser records of API-CONVENTIONS.md section 3. */
export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * A JSON object of counts keyed by names users choose (reactions), with no prototype: `__proto__` or
 * `constructor` is then a key like any other, where a plain object would read or replace its own.
 */
export function parseCounts(text: string): Record<string, number> {
  return Object.assign(Object.create(null) as Record<string, number>, parseJson<Record<string, number>>(text, {}));
}

/** A mute ends by itself when its time passes; no job has to clear it. */
function muteState(muteUntil: number | null, now: number): { isMuted: boolean; muteTimeout: string | null } {
  const isMuted = muteUntil !== null && muteUntil > now;
  return { isMuted, muteTimeout: isMuted ? iso(muteUntil) : null };
}

export function presentChannel(row: ChannelsTable, now: number) {
  return {
    channelId: row.id,
    type: row.type,
    displayName: row.display_name ?? '',
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
    tags: parseJson<string[]>(row.tags, []),
    ...muteState(row.mute_until, now),
    isClosed: row.is_closed === 1,
    memberCount: row.member_count,
    messageCount: row.message_count,
    lastActivity: iso(row.last_activity),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function presentChannelUser(row: ChannelMembersTable, now: number) {
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

export type ChannelRecord = ReturnType<typeof presentChannel>;
export type ChannelUserRecord = ReturnType<typeof presentChannelUser>;
