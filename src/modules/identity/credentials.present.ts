import { type Static, Type } from '@sinclair/typebox';
import { IsoTime, Nullable, StringEnum } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
import type { GrantRow } from './credentials.store.js';
import type { AccessTokenRow } from './grants.store.js';
import type { SessionRow } from './sessions.store.js';

/**
 * A user's credentials as the admin API lists them: ids, origins and times, never a token, a cookie
 * or a hash of one. Stored as hashes, they could not be shown anyway.
 */

export const LoginSessionRecord = Type.Object(
  {
    sessionId: Type.String({ description: 'The id to revoke it by' }),
    createdAt: IsoTime('When the person signed in (entered the password)'),
    lastSeenAt: Nullable(IsoTime('When the browser last presented the session cookie, to the minute'), 'null when not recorded'),
    expiresAt: IsoTime('When the session ends by itself (7 days after sign-in)'),
  },
  {
    description: "A live login session: a browser's sign-in at the sign-in pages (the session cookie)",
    examples: [
      {
        sessionId: '67d3f5a5e4b0a1c2d3e4f560',
        createdAt: '2025-03-10T08:12:00.000Z',
        lastSeenAt: '2025-03-11T09:40:00.000Z',
        expiresAt: '2025-03-17T08:12:00.000Z',
      },
    ],
  },
);
export type LoginSessionRecord = Static<typeof LoginSessionRecord>;

export function presentSession(row: SessionRow): LoginSessionRecord {
  return { sessionId: row.id, createdAt: iso(row.created_at), lastSeenAt: iso(row.last_seen_at), expiresAt: iso(row.expires_at) };
}

export const AccessTokenRecord = Type.Object(
  {
    tokenId: Type.String({ description: 'The id to revoke it by' }),
    kind: StringEnum(['user', 'bot'], "'bot' for a bot's token"),
    source: StringEnum(
      ['signIn', 'clientCredentials', 'minted'],
      'signIn: the token endpoint answered a sign-in grant (grantId names it); clientCredentials: a bot asked the token endpoint; minted: POST /api/v2/users/{userId}/tokens',
    ),
    clientId: Nullable(Type.String(), 'The OAuth client it was issued to; null for a minted token'),
    grantId: Nullable(Type.String(), 'The grant it was issued from (revoking the grant revokes it); null when none'),
    scope: Nullable(Type.String(), 'null for a minted token (full access)'),
    createdAt: IsoTime('When it was issued'),
    expiresAt: Nullable(IsoTime('When it expires'), 'null when it never expires'),
  },
  {
    description: 'A live access token of the user (never the token itself)',
    examples: [
      {
        tokenId: '67d3f5a5e4b0a1c2d3e4f561',
        kind: 'user',
        source: 'signIn',
        clientId: '67d3f5a5e4b0a1c2d3e4f530',
        grantId: '67d3f5a5e4b0a1c2d3e4f562',
        scope: 'openid profile',
        createdAt: '2025-03-11T09:40:02.000Z',
        expiresAt: '2025-03-11T10:40:02.000Z',
      },
    ],
  },
);
export type AccessTokenRecord = Static<typeof AccessTokenRecord>;

export function presentAccessToken(row: AccessTokenRow): AccessTokenRecord {
  const source = row.grant_id !== null ? 'signIn' : row.client_id !== null ? 'clientCredentials' : 'minted';
  return {
    tokenId: row.id,
    kind: row.kind === 'bot' ? 'bot' : 'user',
    source,
    clientId: row.client_id,
    grantId: row.grant_id,
    scope: row.scope,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
  };
}

export const GrantRecord = Type.Object(
  {
    grantId: Type.String({ description: 'The id to revoke it by (DELETE .../tokens/{grantId})' }),
    clientId: Type.String({ description: 'The OAuth client that holds it' }),
    scope: Type.String(),
    signedInAt: IsoTime('When the person signed in for it'),
    refreshTokenIssuedAt: IsoTime('When its current refresh token was issued (its last refresh)'),
    expiresAt: IsoTime('When its current refresh token expires unless used (30 days after issue)'),
  },
  {
    description: "A live grant: an app's refresh token (rotated on each use) and the access tokens issued from it",
    examples: [
      {
        grantId: '67d3f5a5e4b0a1c2d3e4f562',
        clientId: '67d3f5a5e4b0a1c2d3e4f530',
        scope: 'openid profile',
        signedInAt: '2025-03-10T08:12:00.000Z',
        refreshTokenIssuedAt: '2025-03-11T09:40:02.000Z',
        expiresAt: '2025-04-10T09:40:02.000Z',
      },
    ],
  },
);
export type GrantRecord = Static<typeof GrantRecord>;

export function presentGrant(row: GrantRow): GrantRecord {
  return {
    grantId: row.family_id,
    clientId: row.client_id,
    scope: row.scope,
    signedInAt: iso(row.auth_time),
    refreshTokenIssuedAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
  };
}
