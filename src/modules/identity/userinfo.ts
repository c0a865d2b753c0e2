import { parseJson } from '../channels/channels.present.js';
import type { Principal } from '../tokens/tokens.service.js';
import type { UserRow } from '../users/users.types.js';
import { fullNameOf } from './id-token.js';
import { oauthError } from './oauth-errors.js';

/**
 * The userinfo answer (API-CONVENTIONS.md section 4): the original's fields as strings, "" when
 * empty and never null, `extras` as an object, and the standard OpenID Connect names beside them.
 */
export function presentUserinfo(user: UserRow, context: { networkId: string; avatarUrl: (avatarId: string) => string }) {
  const avatar = user.avatar ?? '';
  return {
    _id: user.id,
    nid: context.networkId,
    networkId: context.networkId,
    network_admin: user.kind === 'admin' ? 'true' : 'false',
    username: user.username ?? '',
    firstname: user.firstname ?? '',
    lastname: user.lastname ?? '',
    email: user.email ?? '',
    avatar,
    position: user.position ?? '',
    status: user.status ?? '',
    extras: parseJson<Record<string, unknown>>(user.extras, {}),
    sub: user.id,
    name: fullNameOf(user),
    given_name: user.firstname ?? '',
    family_name: user.lastname ?? '',
    preferred_username: user.username ?? '',
    picture: avatar === '' ? '' : context.avatarUrl(avatar),
    title: user.position ?? '',
  };
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
