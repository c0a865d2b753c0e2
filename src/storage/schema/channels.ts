/** Channels, their tags and members. */

export interface ChannelsTable {
  id: string;
  type: string;
  display_name: string | null;
  metadata: string;
  /** JSON array, kept for presenting; channel_tags is what queries filter on. */
  tags: string;
  is_closed: number;
  /** 1 when users may join by themselves (the client API's join), else 0. */
  joinable: number;
  mute_until: number | null;
  member_count: number;
  message_count: number;
  last_segment: number;
  last_activity: number | null;
  created_at: number;
  updated_at: number;
}

export interface ChannelTagsTable {
  channel_id: string;
  tag: string;
}

export interface ChannelMembersTable {
  channel_id: string;
  user_id: string;
  /** 'member' | 'banned' */
  membership: string;
  roles: string;
  mute_until: number | null;
  read_to_segment: number;
  last_activity: number | null;
  created_at: number;
  updated_at: number;
}
