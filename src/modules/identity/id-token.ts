import { SignJWT } from 'jose';
import type { UserRow } from '../users/users.types.js';
import type { IdTokenAlg } from './clients.service.js';
import type { RsaSigningKey } from './signing-keys.js';

/** ID tokens live an hour (docs/contract.md, Sign-in). */
export const ID_TOKEN_TTL_SECONDS = 3600;

export interface IdTokenInput {
  issuer: string;
  clientId: string;
  user: UserRow;
  scopes: readonly string[];
  nowMs: number;
  nonce?: string | null;
  /** The moment the user signed in, in ms; sent as auth_time when the request asked about it. */
  authTimeMs?: number | null;
}

export function fullNameOf(user: UserRow): string {
  const joined = [user.firstname ?? '', user.lastname ?? '']
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .join(' ');
  return joined !== '' ? joined : (user.display_name ?? '');
}

/**
 * Claims by scope, as docs/contract.md, Sign-in details, fixes them: `openid` carries firstname, lastname
 * and email; `openid profile` carries name and email instead. The original's claims (firstname,
 * lastname, email) are "" when empty, never null, as its SDKs read them; the standard `name` is left
 * out when the user has none (OpenID Connect Core 5.3.2: no claim rather than an empty one).
 */
export function idTokenClaims(input: IdTokenInput): Record<string, string | number> {
  const iat = Math.floor(input.nowMs / 1000);
  const claims: Record<string, string | number> = {
    iss: input.issuer,
    sub: input.user.id,
    aud: input.clientId,
    exp: iat + ID_TOKEN_TTL_SECONDS,
    iat,
  };
  if (input.scopes.includes('profile')) {
    const name = fullNameOf(input.user);
    if (name !== '') claims.name = name;
  } else {
    claims.firstname = input.user.firstname ?? '';
    claims.lastname = input.user.lastname ?? '';
  }
  claims.email = input.user.email ?? '';
  if (input.nonce) claims.nonce = input.nonce;
  if (input.authTimeMs !== undefined && input.authTimeMs !== null) claims.auth_time = Math.floor(input.authTimeMs / 1000);
  return claims;
}

/** HS256 keyed with the client secret (the original's choice), or RS256 with the server key pair. */
export async function signIdToken(
  claims: Record<string, string | number>,
  signing: { alg: IdTokenAlg; clientSecret: string | null; rsa: RsaSigningKey },
): Promise<string> {
  const jwt = new SignJWT(claims);
  if (signing.alg === 'HS256') {
    if (signing.clientSecret === null) throw new Error('an HS256 ID token needs the client secret');
    return jwt.setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(signing.clientSecret));
  }
  return jwt.setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signing.rsa.kid }).sign(signing.rsa.privateKey);
}
