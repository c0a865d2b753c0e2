import type { Clock } from '../../../clock.js';
import type { Executor } from '../../../storage/database.js';
import { hashToken } from '../../tokens/tokens.service.js';
import type { OAuthClient } from '../clients.service.js';
import { createGrantsStore, type GrantsStore, type RefreshRow } from '../grants.store.js';
import { oauthError } from '../oauth-errors.js';
import { GrantAlreadyUsed, type SignInTokenResponse, type TokenIssuer } from './issue-tokens.js';
import { requireSignInUser, type FindUser } from './signin-user.js';

/**
 * A narrower scope may be asked for on refresh (RFC 6749 section 6), never a wider one, and never one
 * without `openid`: as at the authorization request, scopes here are `openid` or `openid profile`, and
 * the token response carries an ID token on the refresh grant too (docs/contract.md, Sign-in details).
 */
function refreshedScopes(granted: string[], asked: string | null): string[] {
  if (asked === null || asked.trim() === '') return granted;
  const wanted = asked.split(/\s+/).filter((scope) => scope !== '');
  const extra = wanted.filter((scope) => !granted.includes(scope));
  if (extra.length > 0) throw oauthError('invalid_scope', 'The scope asked for is wider than the one the refresh token was granted.');
  if (!wanted.includes('openid')) throw oauthError('invalid_scope', 'The scope must contain openid (scope=openid or scope=openid profile).');
  return granted.filter((scope) => wanted.includes(scope));
}

/** What the refresh grant needs besides the client and the form. */
export interface RefreshGrantDeps {
  clock: Clock;
  grants: GrantsStore;
  issuer: TokenIssuer;
  findUser: FindUser;
  /** How long after its rotation the same client may present a refresh token again (0: never). */
  reuseWindowMs: number;
  /** Told after a replay revoked the user's grant: their streams opened with its tokens end on every instance. */
  onGrantRevoked?: (userId: string) => void;
}

/**
 * Whether a rotated token may be answered again: the same client presents it, the family is live,
 * and it was rotated less than the window ago. Concurrent refreshes of one relying party (two
 * requests of mod_auth_openidc at once) land here; a copy used by anyone else, or later, does not.
 */
function withinReuseWindow(token: RefreshRow, client: OAuthClient, now: number, windowMs: number): boolean {
  return token.client_id === client.clientId && token.revoked_at === null && token.used_at !== null && now - token.used_at < windowMs;
}

/**
 * The claim of a rotation, inside the transaction that writes the new tokens: the first use marks
 * the token used. A later one (the first may have committed a moment ago: the row is read again
 * here, after the update waited for its lock) is answered only within the reuse window, and only
 * while no token that replaced it has been used: a client that has moved on to the new token never
 * needs the old one again, so its reappearance is a copy.
 */
async function claimRotation(trx: Executor, token: RefreshRow, client: OAuthClient, now: number, windowMs: number): Promise<boolean> {
  const grants = createGrantsStore(trx);
  if (await grants.markRefreshUsed(token.token_hash, now)) return true;
  const current = await grants.findRefresh(token.token_hash);
  if (current === undefined || !withinReuseWindow(current, client, now, windowMs)) return false;
  return !(await grants.hasUsedSuccessor(current.id));
}

/**
 * grant_type=refresh_token. Each refresh token is replaced on use (rotation); using one again means
 * it was copied, so the whole family, and its access tokens, is revoked (OAuth 2.0 Security BCP
 * section 4.14.2). The one exception is the reuse window (claimRotation): the same client may present
 * a just-rotated token again for a short while and gets a new pair of the same family, so both
 * answers work. A redirect_uri sent along (the original's SDKs do) is ignored.
 */
export async function grantRefreshToken(deps: RefreshGrantDeps, client: OAuthClient, form: URLSearchParams): Promise<SignInTokenResponse> {
  if (!client.grantTypes.includes('refresh_token')) throw oauthError('unauthorized_client', 'This client may not use the refresh_token grant.');
  const value = form.get('refresh_token');
  if (!value) throw oauthError('invalid_request', 'The request has no refresh_token.');
  const tokenHash = hashToken(value);
  const token = await deps.grants.findRefresh(tokenHash);
  if (!token) throw oauthError('invalid_grant', 'The refresh token is invalid.');
  const now = deps.clock.now();
  const replay = async () => {
    await deps.grants.revokeGrant(token.family_id, now);
    deps.onGrantRevoked?.(token.user_id);
    return oauthError('invalid_grant', 'The refresh token was already used; its whole family is revoked.');
  };
  if (token.revoked_at !== null) {
    // A ban revokes the grant too: its refusal says why.
    await requireSignInUser(deps.findUser, token.user_id);
    throw oauthError('invalid_grant', 'The refresh token was revoked.');
  }
  // A used token in another client's hands was copied: never within the window.
  if (token.used_at !== null && !withinReuseWindow(token, client, now, deps.reuseWindowMs)) throw await replay();
  if (token.client_id !== client.clientId) throw oauthError('invalid_grant', 'The refresh token is invalid.');
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
      replaces: token.id,
      authTime: token.auth_time,
      includeAuthTime: token.include_auth_time === 1,
      // OpenID Connect Core 12.2: a refreshed ID token carries no nonce.
      nonce: null,
      claim: (trx) => claimRotation(trx, token, client, now, deps.reuseWindowMs),
    });
  } catch (error) {
    if (error instanceof GrantAlreadyUsed) throw await replay();
    throw error;
  }
}
