/** Users, their flags and timed bans, roles and the tokens they authenticate with. */

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
  /** What the flagger wrote (trimmed, 1-500 characters); null when they wrote nothing (migration 0019). */
  reason: string | null;
}

/**
 * When a ban set for a number of minutes is lifted (migration 0020): one row per user and channel, or
 * per user for a global ban. Whoever set the ban (an admin route, a client API moderator, a review of
 * the moderation queue) wrote it; a ban or unban by hand removes it.
 */
export interface BanLiftsTable {
  user_id: string;
  /** The channel the user is banned from; null for a global ban. */
  channel_id: string | null;
  lift_at: number;
  /** When the timed ban was set: a channel ban set again later by other means is not this lift's to end. */
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
  /** Admin tokens: when one last authenticated a request, to the minute; null for other kinds. */
  last_used_at: number | null;
}

export interface RolesTable {
  public_id: string;
  /** JSON array of permission names */
  permissions: string;
  created_at: number;
  updated_at: number;
}

/** An erasure under way: its first transaction committed, its batches not all done (modules/privacy). */
export interface ErasuresTable {
  user_id: string;
  /** 'delete' or 'anonymise': what the erasure does with the user's messages. */
  messages_mode: string;
  requested_at: number;
}
