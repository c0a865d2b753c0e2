import { parseJson } from '../../shared/values.js';
import type { Principal } from '../tokens/tokens.service.js';
import type { UserRow } from '../users/users.types.js';
import { fullNameOf } from './id-token.js';
import { oauthError } from './oauth-errors.js';

/** The userinfo answer; the standard OpenID Connect claims are present only with a value. */
export interface UserinfoRecord {
  _id: string;
  nid: string;
  networkId: string;
  network_admin: 'true' | 'false';
  username: string;
  firstname: string;
  lastname: string;
  email: string;
  avatar: string;
  position: string;
  status: string;
  extras: Record<string, unknown>;
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
  picture?: string;
  title: string;
}

/**
 * The userinfo answer (docs/contract.md, Sign-in details): the original's fields as strings, "" when
 * empty and never null (its SDKs read them unconditionally), `extras` as an object, and the standard
 * OpenID Connect claims beside them. A standard claim without a value is left out, not sent as ""
 * (OpenID Connect Core 5.3.2): a relying party reads an absent claim as unknown, an empty one as a
 * value (an empty picture URL, an empty name). `email` is one of the original's fields and `title`
 * (the position) no OpenID Connect claim, so both stay "" when empty.
 */
export function presentUserinfo(user: UserRow, context: { networkId: string; avatarUrl: (avatarId: string) => string }): UserinfoRecord {
  const info: UserinfoRecord = {
    _id: user.id,
    nid: context.networkId,
    networkId: context.networkId,
    network_admin: user.kind === 'admin' ? 'true' : 'false',
    username: user.username ?? '',
    firstname: user.firstname ?? '',
    lastname: user.lastname ?? '',
    email: user.email ?? '',
    avatar: user.avatar ?? '',
    position: user.position ?? '',
    status: user.status ?? '',
    extras: parseJson<Record<string, unknown>>(user.extras, {}),
    sub: user.id,
    title: user.position ?? '',
  };
  const name = fullNameOf(user);
  if (name !== '') info.name = name;
  if (user.firstname) info.given_name = user.firstname;
  if (user.lastname) info.family_name = user.lastname;
  if (user.username) info.preferred_username = user.username;
  if (user.avatar) info.picture = context.avatarUrl(user.avatar);
  return info;
}

/** RFC 6750 section 3: the challenge names the error, so a client knows to refresh or re-authorize. */
export function bearerChallenge(error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | null, description?: string): Record<string, string> {
  const parts = ['realm="parley"'];
  if (error !== null) parts.push(`error="${error}"`);
  if (error === 'insufficient_scope') parts.push('scope="openid"');
  if (description !== undefined) parts.push(`error_description="${description.replace(/["\\]/g, '')}"`);
  return { 'www-authenticate': `Bearer ${parts.join(', ')}` };
}

/**
 * Who may read userinfo: a live user token whose scope has openid (sign-in), or one minted by the
 * operator (no scope: full access). Bot and admin tokens answer insufficient_scope.
 */
export async function requireUserinfoUser(
  principal: Principal | null,
  presented: boolean,
  findUser: (userId: string) => Promise<UserRow | undefined>,
): Promise<UserRow> {
  if (!presented) throw oauthError('invalid_token', 'Missing bearer token.', bearerChallenge(null));
  if (principal === null) throw oauthError('invalid_token', 'Token is invalid or expired.', bearerChallenge('invalid_token', 'Token is invalid or expired.'));
  const scopes = principal.scope === null ? null : principal.scope.split(' ');
  if (principal.kind !== 'user' || (scopes !== null && !scopes.includes('openid'))) {
    throw oauthError('insufficient_scope', 'This token cannot read userinfo: it needs a user token with scope openid.', bearerChallenge('insufficient_scope'));
  }
  const user = await findUser(principal.userId);
  if (!user) throw oauthError('invalid_token', 'The user of this token no longer exists.', bearerChallenge('invalid_token'));
  if (user.is_global_ban === 1)
    throw oauthError('invalid_token', 'User is banned from the system.', bearerChallenge('invalid_token', 'User is banned from the system.'));
  return user;
}
