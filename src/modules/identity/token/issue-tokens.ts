import type { Clock } from '../../../clock.js';
import type { Dialect, Executor } from '../../../storage/database.js';
import { newObjectId } from '../../../storage/ids.js';
import { runTransaction } from '../../../storage/transactions.js';
import { generateToken, hashToken } from '../../tokens/tokens.service.js';
import type { UserRow } from '../../users/users.types.js';
import type { ClientsService, OAuthClient } from '../clients.service.js';
import { createGrantsStore } from '../grants.store.js';
import { idTokenClaims, signIdToken } from '../id-token.js';
import type { RsaSigningKey } from '../signing-keys.js';
import { createTokenWriter } from './token-writer.js';

/** Access tokens last an hour by default (docs/contract.md, Limits); refresh tokens 30 days, rotated on each use. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;

export interface SignInTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

export interface BotTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** Thrown when the grant's claim (consuming the code, rotating the refresh token) lost a race: a replay. */
export class GrantAlreadyUsed extends Error {}

export interface SignInGrant {
  client: OAuthClient;
  user: UserRow;
  scopes: string[];
  /**
   * The scope the new refresh token carries, when it differs from `scopes`: a refresh that asks for
   * less narrows the tokens it answers, never the grant (RFC 6749 section 6: the new refresh token's
   * scope is the one of the token it replaces).
   */
  refreshScopes?: string[];
  /** The authorization code's id: the family of every token issued from it. */
  grantId: string;
  /** The id of the refresh token this grant rotates; absent for the code grant. */
  replaces?: string;
  authTime: number;
  includeAuthTime: boolean;
  nonce: string | null;
  /**
   * Marks the code or refresh token used, inside the transaction that writes the new tokens, so one
   * commit covers both; answering false (someone used it first) rolls back with GrantAlreadyUsed.
   */
  claim: (trx: Executor) => Promise<boolean>;
}

/** Mints the tokens of a successful grant. Access tokens go to the shared tokens table, hashed. */
export function createTokenIssuer(deps: { db: Executor; dialect: Dialect; clock: Clock; issuer: string; clients: ClientsService; rsa: RsaSigningKey }) {
  const { db, clock } = deps;
  const writer = createTokenWriter(db);

  return {
    /** Claims the grant, then writes the access and refresh tokens, in one transaction; signs the ID token. */
    async issueSignIn(grant: SignInGrant): Promise<SignInTokenResponse> {
      const now = clock.now();
      const accessToken = generateToken();
      const refreshToken = generateToken();
      const scope = grant.scopes.join(' ');
      await runTransaction(db, async (trx) => {
        const grants = createGrantsStore(trx);
        // First: a password change, ban or sign-out of this user either sees these tokens or refuses the claim.
        await grants.shareLockUser(grant.user.id, deps.dialect);
        if (!(await grant.claim(trx))) throw new GrantAlreadyUsed();
        await grants.insertAccessToken({
          token_hash: hashToken(accessToken),
          id: newObjectId(now),
          kind: 'user',
          user_id: grant.user.id,
          name: null,
          client_id: grant.client.clientId,
          scope,
          expires_at: now + ACCESS_TOKEN_TTL_SECONDS * 1000,
          revoked_at: null,
          created_at: now,
          grant_id: grant.grantId,
          last_used_at: null,
        });
        await grants.insertRefresh({
          token_hash: hashToken(refreshToken),
          id: newObjectId(now),
          family_id: grant.grantId,
          client_id: grant.client.clientId,
          user_id: grant.user.id,
          scope: grant.refreshScopes?.join(' ') ?? scope,
          auth_time: grant.authTime,
          include_auth_time: grant.includeAuthTime ? 1 : 0,
          expires_at: now + REFRESH_TOKEN_TTL_MS,
          used_at: null,
          revoked_at: null,
          created_at: now,
          parent_id: grant.replaces ?? null,
        });
      });
      const response: SignInTokenResponse = {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        refresh_token: refreshToken,
        scope,
      };
      if (grant.scopes.includes('openid')) {
        const claims = idTokenClaims({
          issuer: deps.issuer,
          clientId: grant.client.clientId,
          user: grant.user,
          scopes: grant.scopes,
          nowMs: now,
          nonce: grant.nonce,
          authTimeMs: grant.includeAuthTime ? grant.authTime : null,
        });
        response.id_token = await signIdToken(claims, { alg: grant.client.idTokenAlg, clientSecret: deps.clients.secretOf(grant.client), rsa: deps.rsa });
      }
      return response;
    },

    /** A bot's bearer token (client_credentials): no refresh token, no ID token (RFC 6749 section 4.4.3). */
    async issueBot(client: OAuthClient, botUserId: string): Promise<BotTokenResponse> {
      const now = clock.now();
      const accessToken = generateToken();
      await writer.write({
        token_hash: hashToken(accessToken),
        id: newObjectId(now),
        kind: 'bot',
        user_id: botUserId,
        name: null,
        client_id: client.clientId,
        scope: 'bot',
        expires_at: now + ACCESS_TOKEN_TTL_SECONDS * 1000,
        revoked_at: null,
        created_at: now,
        grant_id: null,
        last_used_at: null,
      });
      return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: 'bot' };
    },
  };
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
