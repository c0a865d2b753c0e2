import { type Static, Type } from '@sinclair/typebox';
import { IsoTime, Nullable } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
import { ENV_ADMIN_TOKEN_NAME, type IssuedToken } from './tokens.service.js';
import type { TokenRow } from './tokens.store.js';

/** An admin token as the admin API lists it: never the token, nor its hash. */
export const AdminTokenRecord = Type.Object(
  {
    tokenId: Type.String({ description: 'The id to revoke it by' }),
    name: Type.String({ description: `Its name; ${ENV_ADMIN_TOKEN_NAME} for the token of that variable` }),
    userId: Type.String({ description: 'The user it acts as (admin-<name>)' }),
    environment: Type.Boolean({
      description: `Whether it is the token of ${ENV_ADMIN_TOKEN_NAME}: accepted only while the variable holds it, and not revocable here (unset the variable and restart instead)`,
    }),
    createdAt: IsoTime('When it was created'),
    expiresAt: Nullable(IsoTime('When it expires'), 'null when it never expires'),
    lastUsedAt: Nullable(IsoTime('When it last authenticated a request, to the minute'), 'null when never used'),
    revokedAt: Nullable(IsoTime('When it was revoked'), 'null while active'),
  },
  {
    description: 'An admin token (never the token itself)',
    examples: [
      {
        tokenId: '67d3f5a5e4b0a1c2d3e4f570',
        name: 'ops',
        userId: 'admin-ops',
        environment: false,
        createdAt: '2025-03-01T10:00:00.000Z',
        expiresAt: null,
        lastUsedAt: '2025-03-11T09:41:00.000Z',
        revokedAt: null,
      },
    ],
  },
);
export type AdminTokenRecord = Static<typeof AdminTokenRecord>;

export function presentAdminToken(row: TokenRow): AdminTokenRecord {
  return {
    tokenId: row.id,
    name: row.name ?? '',
    userId: row.user_id,
    environment: row.name === ENV_ADMIN_TOKEN_NAME,
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}

/** A token just created: active, never used. */
export function presentNewAdminToken(name: string, issued: IssuedToken & { userId: string }): AdminTokenRecord {
  return {
    tokenId: issued.id,
    name,
    userId: issued.userId,
    environment: false,
    createdAt: iso(issued.createdAt),
    expiresAt: iso(issued.expiresAt),
    lastUsedAt: null,
    revokedAt: null,
  };
}
