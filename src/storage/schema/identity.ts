/** Sign-in: OAuth clients, bots, authorization codes, refresh tokens, login sessions and failures, avatars. */

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
  /** JSON array of exact post-logout redirect URIs (RP-Initiated Logout); '[]' for none. */
  post_logout_redirect_uris: string;
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
  /**
   * Set when the token was rotated. A second use revokes the family, unless it comes from the same
   * client within the reuse window and before any token that replaced it was used.
   */
  used_at: number | null;
  revoked_at: number | null;
  created_at: number;
  /** The id of the refresh token this one replaced; null for the first of a family. */
  parent_id: string | null;
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
  /** When the cookie was last presented, to the minute (written at most once a minute). */
  last_seen_at: number | null;
}

/** A password-reset link: one live per user, replaced by the next, deleted by its one use. */
export interface PasswordResetsTable {
  user_id: string;
  /** SHA-256 of the link's token, hex. */
  token_hash: string;
  expires_at: number;
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
