import type { Clock } from '../../../clock.js';
import { hashToken } from '../../tokens/tokens.service.js';
import type { OAuthClient } from '../clients.service.js';
import { createGrantsStore, type GrantsStore } from '../grants.store.js';
import { oauthError } from '../oauth-errors.js';
import { GrantAlreadyUsed, type SignInTokenResponse, type TokenIssuer } from './issue-tokens.js';
import { requireSignInUser, type FindUser } from './signin-user.js';

/**
 * A narrower scope may be asked for on refresh (RFC 6749 section 6), never a wider one, and never one
 * without `openid`: as at the authorization request, scopes here are `openid` or `openid profile`, and
 * the token response carries an ID token on the refresh grant too (API-CONVENTIONS.md section 4).
 */
function refreshedScopes(granted: string[], asked: string | null): string[] {
  if (asked === null || asked.trim() === '') return granted;
  const wanted = asked.split(/\s+/).filter((scope) => scope !== '');
  const extra = wanted.filter((scope) => !granted.includes(scope));
  if (extra.length > 0) throw oauthError('invalid_scope', 'The scope asked for is wider than the one the refresh token was granted.');
  if (!wanted.includes('openid')) throw oauthError('invalid_scope', 'The scope must contain openid (scope=openid or scope=openid profile).');
  return granted.filter((scope) => wanted.includes(scope));
}

/**
 * grant_type=refresh_token. Each refresh token works once and is replaced (rotation); using one
 * again means it was copied, so the whole family, and its access tokens, is revoked
 * (OAuth 2.0 Security BCP section 4.14.2). A redirect_uri sent along (the original's SDKs do) is ignored.
 */
export async function grantRefreshToken(
  deps: { clock: Clock; grants: GrantsStore; issuer: TokenIssuer; findUser: FindUser },
  client: OAuthClient,
  form: URLSearchParams,
): Promise<SignInTokenResponse> {
  if (!client.grantTypes.includes('refresh_token')) throw oauthError('unauthorized_client', 'This client may not use the refresh_token grant.');
  const value = form.get('refresh_token');
  if (!value) throw oauthError('invalid_request', 'The request has no refresh_token.');
  const tokenHash = hashToken(value);
  const token = await deps.grants.findRefresh(tokenHash);
  if (!token || token.client_id !== client.clientId) throw oauthError('invalid_grant', 'The refresh token is invalid.');
  const now = deps.clock.now();
  const replay = async () => {
    await deps.grants.revokeGrant(token.family_id, now);
    return oauthError('invalid_grant', 'The refresh token was already used; its whole family is revoked.');
  };
  if (token.revoked_at !== null) throw oauthError('invalid_grant', 'The refresh token was revoked.');
  if (token.used_at !== null) throw await replay();
  if (token.expires_at <= now) throw oauthError('invalid_grant', 'The refresh token has expired.');
  const granted = token.scope.split(' ').filter((scope) => scope !== '');
  const scopes = refreshedScopes(granted, form.get('scope'));
  const user = await requireSignInUser(deps.findUser, token.user_id);
  try {
    return await deps.issuer.issueSignIn({
      client,
      user,
      scopes,
      refreshScopes: granted,
      grantId: token.family_id,
      authTime: token.auth_time,
      includeAuthTime: token.include_auth_time === 1,
      // OpenID Connect Core 12.2: a refreshed ID token carries no nonce.
      nonce: null,
      claim: (trx) => createGrantsStore(trx).markRefreshUsed(tokenHash, now),
    });
  } catch (error) {
    if (error instanceof GrantAlreadyUsed) throw await replay();
    throw error;
  }
}
