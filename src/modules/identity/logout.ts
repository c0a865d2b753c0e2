import { createPublicKey, type KeyObject } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { withParameters } from './authorize/authorize.service.js';
import type { AuthorizationParameters } from './authorize/parameters.js';
import type { ClientsService, OAuthClient } from './clients.service.js';
import type { RsaSigningKey } from './signing-keys.js';

/**
 * OpenID Connect RP-Initiated Logout 1.0: the checks of a logout request at /logout (the
 * end_session_endpoint). A request that fails one is refused whole (section 4): nothing of it is
 * used, the person stays signed in and the browser is not sent anywhere.
 */

/** The parameters of a logout request; `ui_locales` and `logout_hint` are read and not used. */
export const LOGOUT_PARAMETERS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state', 'logout_hint', 'ui_locales'] as const;

const MAX_STATE_LENGTH = 4096;
/** Far longer than any ID token this server signs; a longer hint is refused before it is decoded. */
const MAX_HINT_LENGTH = 16 * 1024;

export class LogoutRefused extends Error {}

export interface CheckedLogout {
  /** The user the id_token_hint names, its signature checked (expired or not); null without a hint. */
  hintedSubject: string | null;
  /** The client the request names (client_id, else the hint's audience), when registered. */
  client: OAuthClient | null;
  /** The registered post_logout_redirect_uri with state appended; null: the signed-out page. */
  redirectTo: string | null;
}

interface VerifiedHint {
  subject: string;
  audiences: string[];
  client: OAuthClient | null;
}

function refuse(message: string): never {
  throw new LogoutRefused(message);
}

function audiencesOf(claims: JWTPayload): string[] {
  if (typeof claims.aud === 'string') return [claims.aud];
  return Array.isArray(claims.aud) ? claims.aud.filter((aud): aud is string => typeof aud === 'string') : [];
}

export function createLogoutChecks(deps: { issuer: string; clients: ClientsService; rsa: RsaSigningKey }) {
  const rsaPublicKey: KeyObject = createPublicKey(deps.rsa.privateKey);

  /**
   * An ID token this server signed, whoever it was for and however old: expired hints are accepted
   * (section 2), since a relying party's ID token has usually expired by the time its user signs out.
   * HS256 hints are checked under the secret of the client in `aud`, RS256 ones under the server key.
   */
  async function verifyHint(hint: string): Promise<VerifiedHint> {
    if (hint.length > MAX_HINT_LENGTH) refuse('id_token_hint is not an ID token issued by this server.');
    let alg: unknown;
    let claims: JWTPayload;
    try {
      alg = decodeProtectedHeader(hint).alg;
      claims = decodeJwt(hint);
    } catch {
      refuse('id_token_hint is not an ID token.');
    }
    if (claims.iss !== deps.issuer) refuse('id_token_hint was not issued by this server.');
    if (typeof claims.sub !== 'string' || claims.sub === '') refuse('id_token_hint has no sub.');
    const audiences = audiencesOf(claims);
    const first = audiences[0];
    const client = first !== undefined ? await deps.clients.find(first) : null;
    let key: KeyObject | Uint8Array | null = null;
    if (alg === 'RS256') key = rsaPublicKey;
    else if (alg === 'HS256' && client !== null) {
      const secret = deps.clients.secretOf(client);
      key = secret === null ? null : new TextEncoder().encode(secret);
    }
    if (key === null) refuse('id_token_hint is not signed by this server for a registered client.');
    try {
      await compactVerify(hint, key, { algorithms: [alg as string] });
    } catch {
      refuse('id_token_hint is not signed by this server.');
    }
    return { subject: claims.sub, audiences, client };
  }

  /** The client the request names, checked against the hint's audience (section 2: they must agree). */
  async function clientOf(params: AuthorizationParameters, hint: VerifiedHint | null): Promise<OAuthClient | null> {
    const clientId = params.get('client_id');
    if (clientId === null) return hint?.client ?? null;
    if (hint !== null && !hint.audiences.includes(clientId)) refuse('client_id is not the client id_token_hint was issued to.');
    const client = hint?.client?.clientId === clientId ? hint.client : await deps.clients.find(clientId);
    if (client === null) refuse('The client_id is not registered with this server.');
    return client;
  }

  return {
    /** Checks a logout request; throws LogoutRefused with what is wrong. */
    async check(params: AuthorizationParameters): Promise<CheckedLogout> {
      const repeated = LOGOUT_PARAMETERS.filter((name) => params.repeated.has(name));
      if (repeated.length > 0) refuse(`${repeated.join(', ')} was given more than once.`);
      const state = params.get('state');
      if (state !== null && state.length > MAX_STATE_LENGTH) refuse(`state is longer than ${MAX_STATE_LENGTH} characters.`);
      const hintText = params.get('id_token_hint');
      const hint = hintText === null ? null : await verifyHint(hintText);
      const client = await clientOf(params, hint);
      const uri = params.get('post_logout_redirect_uri');
      let redirectTo: string | null = null;
      if (uri !== null) {
        // Section 3: only a URI registered by the client the request names, exactly as registered.
        if (client === null) refuse('post_logout_redirect_uri needs id_token_hint or client_id to name its client.');
        if (!client.postLogoutRedirectUris.includes(uri)) refuse('post_logout_redirect_uri is not registered for this client.');
        redirectTo = state === null ? uri : withParameters(uri, { state });
      }
      return { hintedSubject: hint?.subject ?? null, client, redirectTo };
    },
  };
}

export type LogoutChecks = ReturnType<typeof createLogoutChecks>;
