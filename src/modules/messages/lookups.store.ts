import type { Executor } from '../../storage/database.js';
import type { ChannelRow, MemberRow } from '../channels/channels.types.js';
import type { UserRow } from '../users/users.types.js';

/**
 * The reads of channels, members and authors that message reads and sends make outside a write:
 * plain lookups by key, kept here so the messages module needs no other module's store.
 */
export function createMessageLookups(db: Executor) {
  return {
    channel(id: string): Promise<ChannelRow | undefined> {
      return db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
    },

    member(channelId: string, userId: string): Promise<MemberRow | undefined> {
      return db.selectFrom('channel_members').selectAll().where('channel_id', '=', channelId).where('user_id', '=', userId).executeTakeFirst();
    },

    /** The display names of these channels that exist, by id ('' for a channel without one). */
    async channelNames(ids: readonly string[]): Promise<Map<string, string>> {
      return new Map([...(await this.channelSummaries(ids))].map(([id, channel]) => [id, channel.name]));
    },

    /** The display name and type of these channels that exist, by id. */
    async channelSummaries(ids: readonly string[]): Promise<Map<string, { name: string; type: string }>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('channels').select(['id', 'display_name', 'type']).where('id', 'in', ids).execute();
      return new Map(rows.map((row) => [row.id, { name: row.display_name ?? '', type: row.type }]));
    },

    user(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async users(ids: readonly string[]): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
    },
  };
}
