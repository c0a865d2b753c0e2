import type { Clock } from '../../../clock.js';
import type { ClientsService } from '../clients.service.js';
import type { GrantsStore } from '../grants.store.js';
import { oauthError } from '../oauth-errors.js';
import { authenticateClient, presentedCredentials } from './client-auth.js';
import { grantAuthorizationCode } from './grant-authorization-code.js';
import { grantClientCredentials } from './grant-client-credentials.js';
import { grantRefreshToken, type RefreshGrantDeps } from './grant-refresh-token.js';
import type { BotTokenResponse, SignInTokenResponse, TokenIssuer } from './issue-tokens.js';
import type { FindUser } from './signin-user.js';

export interface TokenRequest {
  contentType: string | undefined;
  authorization: string | undefined;
  /** The raw form body. */
  body: unknown;
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token', 'client_credentials']);

/** Plain RFC form parsing; a parameter given twice is refused (RFC 6749 section 3.2). */
function readForm(request: TokenRequest): URLSearchParams {
  const type = (request.contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || typeof request.body !== 'string') {
    throw oauthError('invalid_request', 'The token request must be an application/x-www-form-urlencoded body.');
  }
  const form = new URLSearchParams(request.body);
  const seen = new Set<string>();
  for (const name of form.keys()) {
    if (seen.has(name)) throw oauthError('invalid_request', `${name.slice(0, 40)} was given more than once.`);
    seen.add(name);
  }
  return form;
}

/**
 * POST /oauth/token: read the form, check the grant type, authenticate the client, then run the
 * grant's own steps. Every failure is an OAuth error (oauth-errors.ts).
 */
export function createTokenService(
  deps: { clock: Clock; clients: ClientsService; grants: GrantsStore; issuer: TokenIssuer; findUser: FindUser } & Pick<
    RefreshGrantDeps,
    'reuseWindowMs' | 'onGrantRevoked'
  >,
) {
  return {
    async exchange(request: TokenRequest): Promise<SignInTokenResponse | BotTokenResponse> {
      const form = readForm(request);
      const grantType = form.get('grant_type');
      if (!grantType) throw oauthError('invalid_request', 'The request has no grant_type.');
      if (!GRANT_TYPES.has(grantType))
        throw oauthError('unsupported_grant_type', 'This grant_type is not supported: use authorization_code, refresh_token or client_credentials.');
      const client = await authenticateClient(deps.clients, presentedCredentials(request.authorization, form));
      if (grantType === 'client_credentials') return grantClientCredentials(deps, client, form);
      if (grantType === 'refresh_token') return grantRefreshToken(deps, client, form);
      return grantAuthorizationCode(deps, client, form);
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
