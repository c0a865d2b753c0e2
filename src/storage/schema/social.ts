import type { Generated } from 'kysely';

/** Communities, posts, comments and their reactions, the activity clock, and the notification tray built from them. */

export interface CommunitiesTable {
  id: string;
  display_name: string;
  created_by: string;
  member_count: number;
  created_at: number;
  updated_at: number;
}

/** One stint of membership: joined_at..left_at (null while a member), activity-clock times. */
export interface CommunityMembersTable {
  community_id: string;
  user_id: string;
  joined_at: number;
  left_at: number | null;
}

export interface PostsTable {
  id: string;
  /** null: a post on the author's own feed */
  community_id: string | null;
  author_id: string;
  text: string;
  comments_count: number;
  /** JSON object {reactionName: count} */
  reactions: string;
  is_deleted: number;
  /** The activity-clock time of the post (unique). */
  created_at: number;
  updated_at: number;
}

export interface CommentsTable {
  id: string;
  post_id: string;
  author_id: string;
  /** The comment replied to; replies are kept but feed no tray record. */
  parent_id: string | null;
  text: string;
  is_deleted: number;
  created_at: number;
  updated_at: number;
}

export interface PostReactionsTable {
  id: string;
  post_id: string;
  user_id: string;
  reaction_name: string;
  created_at: number;
}

export interface ActivityClockTable {
  name: string;
  last_ms: number;
}

/** One tray record: an owner ('u:<userId>' or 'c:<communityId>'), a verb, a target and a 10-day window. */
export interface TrayRecordsTable {
  id: Generated<number>;
  owner_key: string;
  /** 'post' | 'comment' | 'like' */
  verb: string;
  target_id: string;
  /** 'community' | 'post' */
  target_type: string;
  /** The window's start (the first event's time): the record's targetGroup. */
  window_start: number;
  /** The latest live contribution's time. */
  last_update: number;
  /** The second-latest distinct actor's time: the lastUpdate a reader who is the latest actor sees. */
  prev_update: number | null;
  top_actor_id: string | null;
  community_id: string | null;
  community_name: string | null;
  actors_count: number;
  /** JSON [{id, name}], latest first, at most 3: the view of a reader who is not an actor. */
  actors: string;
  image_avatar_id: string | null;
  created_at: number;
}

/** A record's distinct actors, each at their latest live contribution. */
export interface TrayActorsTable {
  record_id: number;
  actor_id: string;
  last_at: number;
  name: string;
  avatar_id: string | null;
}

/** One event's part in a record (a post, a comment, a like), removed by its removal event. */
export interface TrayContributionsTable {
  /** 'post:<id>' | 'comment:<id>' | 'like:<reactionId>' */
  source_key: string;
  record_id: number;
  actor_id: string;
  at: number;
  name: string;
  avatar_id: string | null;
}

export interface TrayReadsTable {
  user_id: string;
  record_id: number;
  /** The record's lastUpdate when it was marked read: later activity makes it unread again. */
  read_upto: number;
}

export interface TrayStateTable {
  user_id: string;
  last_read_at: number;
}
