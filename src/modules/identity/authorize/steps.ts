import { decodeJwt } from 'jose';
import type { OAuthClient } from '../clients.service.js';
import type { OAuthErrorCode } from '../oauth-errors.js';
import { type AuthorizationParameters, KNOWN_PARAMETERS, redirectUriCandidates } from './parameters.js';

/**
 * The checks of an authorization request, one named step each, run in the contract's order (docs/contract.md, Sign-in) by
 * authorize.service.ts (after the session cookie is read): client and redirect_uri first, whose
 * failures are shown on an error page and never redirected (RFC 6749 section 4.1.2.1), then the
 * rest, whose failures go back to the client on its redirect_uri.
 */
export interface AuthorizeRequest {
  params: AuthorizationParameters;
  client: OAuthClient | null;
  redirectUri: string | null;
  state: string | null;
  scopes: string[];
  nonce: string | null;
  codeChallenge: string | null;
  prompt: Set<string>;
  maxAgeSeconds: number | null;
  /** The `sub` of an id_token_hint: the user the client expects to be signed in. */
  hintedSubject: string | null;
}

export class AuthorizeError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    /** false: shown on an error page, because the redirect target cannot be trusted. */
    readonly redirectable: boolean,
  ) {
    super(description);
  }
}

export type AuthorizeStep = (request: AuthorizeRequest) => void | Promise<void>;

const SUPPORTED_SCOPES = ['openid', 'profile'] as const;
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE_LENGTH = 4096;
const MAX_NONCE_LENGTH = 512;
const MAX_MAX_AGE_SECONDS = 10 * 365 * 24 * 3600;

function fail(error: OAuthErrorCode, description: string): never {
  throw new AuthorizeError(error, description, true);
}

/** Step: client_id names a registered client that may use the code flow. Never redirects. */
export function checkClient(find: (clientId: string) => Promise<OAuthClient | null>): AuthorizeStep {
  return async function checkClientStep(request) {
    const clientId = request.params.get('client_id');
    if (clientId === null) throw new AuthorizeError('invalid_request', 'The request has no client_id.', false);
    if (request.params.repeated.has('client_id')) throw new AuthorizeError('invalid_request', 'client_id was given more than once.', false);
    const client = clientId.length <= 64 ? await find(clientId) : null;
    if (client === null) throw new AuthorizeError('invalid_request', 'The client_id is not registered with this server.', false);
    request.client = client;
  };
}

/** Step: redirect_uri equals one of the client's registered URIs exactly. Never redirects. */
export const checkRedirectUri: AuthorizeStep = function checkRedirectUri(request) {
  const client = request.client as OAuthClient;
  const given = request.params.get('redirect_uri');
  if (given === null) throw new AuthorizeError('invalid_request', 'The request has no redirect_uri.', false);
  if (request.params.repeated.has('redirect_uri')) throw new AuthorizeError('invalid_request', 'redirect_uri was given more than once.', false);
  const registered = new Set(client.redirectUris);
  const longest = Math.max(0, ...client.redirectUris.map((uri) => uri.length));
  const match = registered.has(given) ? given : redirectUriCandidates(request.params, longest).find((candidate) => registered.has(candidate));
  if (match === undefined) {
    throw new AuthorizeError('invalid_request', 'The redirect_uri is not registered for this client.', false);
  }
  request.redirectUri = match;
  request.state = request.params.get('state');
};

/** Step: request objects are not supported (OpenID Connect Core 6). */
export const checkNoRequestObject: AuthorizeStep = function checkNoRequestObject(request) {
  if (request.params.get('request') !== null) fail('request_not_supported', 'The request parameter is not supported.');
  if (request.params.get('request_uri') !== null) fail('request_uri_not_supported', 'The request_uri parameter is not supported.');
};

/** Step: no OAuth parameter twice (RFC 6749 section 3.1). Unknown parameters are ignored. */
export const checkNoRepeatedParameters: AuthorizeStep = function checkNoRepeatedParameters(request) {
  const repeated = [...request.params.repeated].filter((name) => KNOWN_PARAMETERS.has(name));
  if (repeated.length > 0) fail('invalid_request', `${repeated.join(', ')} was given more than once.`);
  const state = request.params.get('state');
  if (state !== null && state.length > MAX_STATE_LENGTH) fail('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters.`);
};

/** Step: response_type is `code`, answered in the query. */
export const checkResponseType: AuthorizeStep = function checkResponseType(request) {
  const responseType = request.params.get('response_type');
  if (responseType === null) fail('invalid_request', 'The request has no response_type.');
  if (responseType !== 'code') fail('unsupported_response_type', 'Only response_type=code is supported.');
  const mode = request.params.get('response_mode');
  if (mode !== null && mode !== 'query') fail('invalid_request', 'Only response_mode=query is supported.');
  if (!(request.client as OAuthClient).grantTypes.includes('authorization_code')) {
    fail('unauthorized_client', 'This client may not use the authorization code flow.');
  }
};

/** Step: scope contains `openid`; `profile` is honoured, other values are dropped. */
export const checkScope: AuthorizeStep = function checkScope(request) {
  const asked = (request.params.get('scope') ?? '').split(/[\s]+/).filter((value) => value !== '');
  if (!asked.includes('openid')) fail('invalid_scope', 'The scope must contain openid (scope=openid or scope=openid profile).');
  request.scopes = SUPPORTED_SCOPES.filter((scope) => asked.includes(scope));
};

/** Step: PKCE with S256 only (RFC 7636); required of public clients, who have no secret. */
export const checkPkce: AuthorizeStep = function checkPkce(request) {
  const challenge = request.params.get('code_challenge');
  const method = request.params.get('code_challenge_method');
  if (challenge === null) {
    if (method !== null) fail('invalid_request', 'code_challenge_method was given without a code_challenge.');
    if ((request.client as OAuthClient).isPublic)
      fail('invalid_request', 'A public client must use PKCE: send code_challenge with code_challenge_method=S256.');
    return;
  }
  if (method !== 'S256') fail('invalid_request', 'Only code_challenge_method=S256 is supported.');
  if (!PKCE_CHALLENGE.test(challenge)) fail('invalid_request', 'code_challenge must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".');
  request.codeChallenge = challenge;
};

/** Step: nonce is kept for the ID token. */
export const checkNonce: AuthorizeStep = function checkNonce(request) {
  const nonce = request.params.get('nonce');
  if (nonce !== null && nonce.length > MAX_NONCE_LENGTH) fail('invalid_request', `nonce is longer than ${MAX_NONCE_LENGTH} characters.`);
  request.nonce = nonce;
};

/** Step: prompt values are known, and `none` stands alone (OpenID Connect Core 3.1.2.1). */
export const checkPrompt: AuthorizeStep = function checkPrompt(request) {
  const values = (request.params.get('prompt') ?? '').split(/\s+/).filter((value) => value !== '');
  const unknown = values.filter((value) => !PROMPTS.has(value));
  if (unknown.length > 0) fail('invalid_request', 'Unsupported prompt value: use none, login, consent or select_account.');
  if (values.includes('none') && values.length > 1) fail('invalid_request', 'prompt=none cannot be combined with other prompt values.');
  request.prompt = new Set(values);
};

/** Step: max_age is a whole number of seconds. */
export const checkMaxAge: AuthorizeStep = function checkMaxAge(request) {
  const raw = request.params.get('max_age');
  if (raw === null) return;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > MAX_MAX_AGE_SECONDS) fail('invalid_request', 'max_age must be a whole number of seconds.');
  request.maxAgeSeconds = Number(raw);
};

/**
 * Step: an id_token_hint names the user the client expects (OpenID Connect Core 3.1.2.1). Its
 * signature is not checked: it can only make this request ask for a sign-in or fail with
 * login_required, never sign anyone in, so a forged hint harms only the one who sends it.
 */
export function checkIdTokenHint(issuer: string): AuthorizeStep {
  return function checkIdTokenHintStep(request) {
    const hint = request.params.get('id_token_hint');
    if (hint === null) return;
    let claims: { sub?: unknown; iss?: unknown };
    try {
      claims = decodeJwt(hint);
    } catch {
      fail('invalid_request', 'id_token_hint is not an ID token.');
    }
    // Another provider's subject ids are not ours: its token names nobody here.
    if (claims.iss !== issuer) fail('invalid_request', 'id_token_hint was not issued by this server.');
    if (typeof claims.sub !== 'string' || claims.sub === '') fail('invalid_request', 'id_token_hint has no sub.');
    request.hintedSubject = claims.sub;
  };
}

export function emptyRequest(params: AuthorizationParameters): AuthorizeRequest {
  return {
    params,
    client: null,
    redirectUri: null,
    state: null,
    scopes: [],
    nonce: null,
    codeChallenge: null,
    prompt: new Set(),
    maxAgeSeconds: null,
    hintedSubject: null,
  };
}
