import { createHash } from 'node:crypto';
import type { Clock } from '../../../clock.js';
import { hashToken } from '../../tokens/tokens.service.js';
import type { OAuthClient } from '../clients.service.js';
import { type CodeRow, createGrantsStore, type GrantsStore } from '../grants.store.js';
import { oauthError } from '../oauth-errors.js';
import { GrantAlreadyUsed, type SignInTokenResponse, type TokenIssuer } from './issue-tokens.js';
import { requireSignInUser, type FindUser } from './signin-user.js';
import { tallySignIn } from '../../stats/daily-tallies.js';

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** PKCE (RFC 7636 section 4.6): BASE64URL(SHA256(code_verifier)) equals the stored challenge. */
function checkVerifier(code: CodeRow, verifier: string | null): void {
  if (code.code_challenge === null) {
    if (verifier !== null) throw oauthError('invalid_grant', 'code_verifier was sent, but the authorization request had no code_challenge.');
    return;
  }
  if (verifier === null) throw oauthError('invalid_grant', 'code_verifier is required: the authorization request used PKCE.');
  if (!VERIFIER.test(verifier)) throw oauthError('invalid_grant', 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".');
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  if (computed !== code.code_challenge) throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge.');
}

/**
 * grant_type=authorization_code. The code is bound to its client, its redirect_uri and its PKCE
 * challenge, lives 60 seconds, and is consumed by one atomic update; a second use is a replay
 * (RFC 6749 section 4.1.2) and revokes every token issued from the code.
 */
export async function grantAuthorizationCode(
  deps: { clock: Clock; grants: GrantsStore; issuer: TokenIssuer; findUser: FindUser; onGrantRevoked?: (userId: string) => void },
  client: OAuthClient,
  form: URLSearchParams,
): Promise<SignInTokenResponse> {
  if (!client.grantTypes.includes('authorization_code')) throw oauthError('unauthorized_client', 'This client may not use the authorization_code grant.');
  const codeValue = form.get('code');
  if (!codeValue) throw oauthError('invalid_request', 'The request has no code.');
  const redirectUri = form.get('redirect_uri');
  if (!redirectUri) throw oauthError('invalid_request', 'The request has no redirect_uri.');

  const codeHash = hashToken(codeValue);
  const code = await deps.grants.findCode(codeHash);
  if (!code || code.client_id !== client.clientId) throw oauthError('invalid_grant', 'The code is invalid.');
  const now = deps.clock.now();
  const replay = async () => {
    await deps.grants.revokeGrant(code.id, now);
    deps.onGrantRevoked?.(code.user_id);
    return oauthError('invalid_grant', 'The code was already used; the tokens issued from it are revoked.');
  };
  if (code.used_at !== null) throw await replay();
  if (code.expires_at <= now) throw oauthError('invalid_grant', 'The code has expired.');
  if (code.redirect_uri !== redirectUri) throw oauthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
  checkVerifier(code, form.get('code_verifier'));
  const user = await requireSignInUser(deps.findUser, code.user_id);
  try {
    return await deps.issuer.issueSignIn({
      client,
      user,
      scopes: code.scope.split(' ').filter((scope) => scope !== ''),
      grantId: code.id,
      authTime: code.auth_time,
      includeAuthTime: code.include_auth_time === 1,
      nonce: code.nonce,
      claim: async (trx) => tallySignIn(trx, await createGrantsStore(trx).consumeCode(codeHash, now), now),
    });
  } catch (error) {
    if (error instanceof GrantAlreadyUsed) throw await replay();
    throw error;
  }
}
