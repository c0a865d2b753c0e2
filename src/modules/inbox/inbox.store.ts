import type { Executor } from '../../storage/database.js';
import type { ChannelMembersTable, ChannelsTable } from '../../storage/schema.js';

export interface MembershipWithChannel {
  member: ChannelMembersTable;
  channel: ChannelsTable;
}

export function createInboxStore(db: Executor) {
  return {
    /** The caller's channels (member rows) with the channel, most recently active first. */
    async channelsOf(userId: string, limit: number): Promise<MembershipWithChannel[]> {
      const rows = await db
        .selectFrom('channel_members as m')
        .innerJoin('channels as c', 'c.id', 'm.channel_id')
        .selectAll('c')
        .select([
          'm.channel_id as m_channel_id',
          'm.user_id as m_user_id',
          'm.membership as m_membership',
          'm.roles as m_roles',
          'm.mute_until as m_mute_until',
          'm.read_to_segment as m_read_to_segment',
          'm.last_activity as m_last_activity',
          'm.created_at as m_created_at',
          'm.updated_at as m_updated_at',
        ])
        .where('m.user_id', '=', userId)
        .where('m.membership', '=', 'member')
        .orderBy('c.last_activity', 'desc')
        .orderBy('c.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        channel: {
          id: row.id,
          type: row.type,
          display_name: row.display_name,
          metadata: row.metadata,
          tags: row.tags,
          is_closed: row.is_closed,
          joinable: row.joinable,
          mute_until: row.mute_until,
          member_count: row.member_count,
          message_count: row.message_count,
          last_segment: row.last_segment,
          last_activity: row.last_activity,
          created_at: row.created_at,
          updated_at: row.updated_at,
        },
        member: {
          channel_id: row.m_channel_id,
          user_id: row.m_user_id,
          membership: row.m_membership,
          roles: row.m_roles,
          mute_until: row.m_mute_until,
          read_to_segment: row.m_read_to_segment,
          last_activity: row.m_last_activity,
          created_at: row.m_created_at,
          updated_at: row.m_updated_at,
        },
      }));
    },
  };
}
