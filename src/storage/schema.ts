import type { Generated } from 'kysely';

/**
 * Table shapes shared by SQLite and PostgreSQL. Dialect-neutral on purpose: times are integer
 * milliseconds, booleans are 0/1 integers, JSON is text. Stores parse JSON; presenters shape output.
 */
export interface UsersTable {
  id: string;
  /** 'user' | 'admin' | 'bot' */
  kind: string;
  display_name: string | null;
  /** JSON array of role names */
  roles: string;
  /** JSON object */
  metadata: string;
  flag_count: number;
  is_global_ban: number;
  username: string | null;
  password_hash: string | null;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  position: string | null;
  status: string | null;
  /** JSON object */
  extras: string;
  avatar: string | null;
  created_at: number;
  updated_at: number;
}

export interface UserFlagsTable {
  target_user_id: string;
  flagger_id: string;
  created_at: number;
}

export interface TokensTable {
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string;
  id: string;
  /** 'admin' | 'user' | 'bot' */
  kind: string;
  user_id: string;
  name: string | null;
  client_id: string | null;
  scope: string | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** The authorization code (and refresh family) a sign-in token came from; null for minted tokens. */
  grant_id: string | null;
}

export interface RolesTable {
  public_id: string;
  /** JSON array of permission names */
  permissions: string;
  created_at: number;
  updated_at: number;
}

export interface ChannelsTable {
  id: string;
  type: string;
  display_name: string | null;
  metadata: string;
  /** JSON array, kept for presenting; channel_tags is what queries filter on. */
  tags: string;
  is_closed: number;
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

export interface OutboxTable {
  id: Generated<number>;
  type: string;
  channel_id: string | null;
  user_id: string | null;
  /** The one user an event is for (tray updates), beside or instead of a channel's members. */
  recipient_id: string | null;
  /** JSON of the event's data, shaped by the module's presenter at write time. */
  payload: string;
  created_at: number;
}

export interface OutboxConsumersTable {
  name: string;
  last_id: number;
  updated_at: number;
}

export interface MessagesTable {
  /** An ObjectId-like id (storage/ids.ts). */
  id: string;
  channel_id: string;
  /** 1-based sequence number inside the channel, with no gaps: the record's channelSegment. */
  segment: number;
  user_id: string;
  /** 'text' | 'custom' | 'image' | 'file' */
  type: string;
  /** JSON object; '{}' once deleted */
  data: string;
  /** JSON array, kept for presenting; message_tags is what queries filter on. */
  tags: string;
  parent_id: string | null;
  /** Live (not deleted) comments of this message. */
  children_number: number;
  is_deleted: number;
  file_id: string | null;
  /** JSON describing the blobs of an image or file message; kept after delete until they are removed. */
  media: string | null;
  flag_count: number;
  /** JSON object {reactionName: count} */
  reactions: string;
  reactions_count: number;
  edited_at: number | null;
  created_at: number;
  updated_at: number;
  /** The topic inside the channel (the bot API's `tid`); null for the channel's main topic. */
  topic_id: string | null;
}

export interface MessageTagsTable {
  message_id: string;
  tag: string;
}

/** One user's reaction of one name on one message (migration 0008). */
export interface MessageReactionsTable {
  id: string;
  message_id: string;
  user_id: string;
  reaction_name: string;
  created_at: number;
}

/** How many reactions of one name a message has; the row goes at zero. */
export interface MessageReactionCountsTable {
  message_id: string;
  reaction_name: string;
  reaction_count: number;
}

/** One flag per (message, flagger). */
export interface MessageFlagsTable {
  message_id: string;
  flagger_id: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  bot_user_id: string;
  /** The outbox id of the event: the delivery's idempotency key (X-Parley-Event-Id). */
  event_id: number;
  /** The exact JSON body sent on every attempt. */
  body: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  delivered_at: number | null;
  gave_up_at: number | null;
  created_at: number;
}

export interface OAuthClientsTable {
  client_id: string;
  name: string;
  /** The client secret, AES-256-GCM under the server key (identity/server-key.ts); null for public clients. */
  secret_sealed: string | null;
  /** JSON array of exact redirect URIs */
  redirect_uris: string;
  /** JSON array of grant types */
  grant_types: string;
  is_public: number;
  /** 'HS256' (keyed with the client secret) | 'RS256' (the server key pair, /oauth/jwks) */
  id_token_alg: string;
  /** The bot user a client_credentials client acts as. */
  bot_user_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface BotsTable {
  user_id: string;
  client_id: string;
  webhook_url: string | null;
  created_at: number;
}

export interface AuthorizationCodesTable {
  /** SHA-256 of the code, hex. */
  code_hash: string;
  id: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  nonce: string | null;
  /** PKCE S256 challenge, when the request carried one. */
  code_challenge: string | null;
  auth_time: number;
  include_auth_time: number;
  expires_at: number;
  /** Set by the one exchange that consumes the code. */
  used_at: number | null;
  created_at: number;
}

export interface RefreshTokensTable {
  /** SHA-256 of the token, hex. */
  token_hash: string;
  id: string;
  /** The authorization code id the family grew from (tokens.grant_id). */
  family_id: string;
  client_id: string;
  user_id: string;
  scope: string;
  auth_time: number;
  include_auth_time: number;
  expires_at: number;
  /** Set when the token was rotated; a second use revokes the family. */
  used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface LoginSessionsTable {
  /** SHA-256 of the session cookie value, hex. */
  id_hash: string;
  id: string;
  user_id: string;
  auth_time: number;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
}

export interface LoginFailuresTable {
  throttle_key: string;
  failed_at: number;
}

export interface AvatarsTable {
  id: string;
  user_id: string;
  content_type: string;
  created_at: number;
}

export interface ModerationRulesTable {
  /** The ruleId, ObjectId-like. */
  id: string;
  /** 'blacklist' | 'whitelist' */
  kind: string;
  /** The word or URL as the admin gave it (trimmed): the record's `regex`, a literal. */
  pattern: string;
  /** Canonical form, unique per kind: the case-folded word, or host + path of a URL. */
  pattern_key: string;
  is_match_exact_word: number;
  is_enabled: number;
  created_at: number;
  updated_at: number;
}

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

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  users: UsersTable;
  user_flags: UserFlagsTable;
  tokens: TokensTable;
  roles: RolesTable;
  channels: ChannelsTable;
  channel_tags: ChannelTagsTable;
  channel_members: ChannelMembersTable;
  messages: MessagesTable;
  message_tags: MessageTagsTable;
  message_reactions: MessageReactionsTable;
  message_reaction_counts: MessageReactionCountsTable;
  message_flags: MessageFlagsTable;
  settings: SettingsTable;
  moderation_rules: ModerationRulesTable;
  oauth_clients: OAuthClientsTable;
  bots: BotsTable;
  authorization_codes: AuthorizationCodesTable;
  refresh_tokens: RefreshTokensTable;
  login_sessions: LoginSessionsTable;
  login_failures: LoginFailuresTable;
  avatars: AvatarsTable;
  outbox: OutboxTable;
  outbox_consumers: OutboxConsumersTable;
  communities: CommunitiesTable;
  community_members: CommunityMembersTable;
  posts: PostsTable;
  comments: CommentsTable;
  post_reactions: PostReactionsTable;
  activity_clock: ActivityClockTable;
  tray_records: TrayRecordsTable;
  tray_actors: TrayActorsTable;
  tray_contributions: TrayContributionsTable;
  tray_reads: TrayReadsTable;
  tray_state: TrayStateTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
