import { ParleyError } from '../errors.js';
import { type ClientCredentials, type FetchLike, platformFetch, tokenRequest, trimBase } from './oauth.js';
import { type StoredTokens, storedTokensOf, TokenSession, type TokenSessionOptions } from './session.js';
import { type KeyValueStorage, memoryStorage, platformStorage } from './token-provider.js';

export interface SignInOptions extends ClientCredentials {
  /** The Parley server, e.g. `https://chat.example.com`. */
  baseUrl: string;
  /** Registered for the client, exactly. */
  redirectUri: string;
  /** Default `openid profile`. */
  scope?: string;
  /** Where state and code_verifier wait for the callback; default `sessionStorage`, else memory. */
  pendingStorage?: KeyValueStorage;
  /** Where the session keeps its tokens; default `localStorage`, else memory. */
  tokenStorage?: KeyValueStorage;
  fetch?: FetchLike;
  /** Options passed to the sessions this helper creates (locks, refresh skew, onChange). */
  session?: Pick<TokenSessionOptions, 'locks' | 'refreshSkewMs' | 'now' | 'onChange' | 'storageKey'>;
}

interface PendingSignIn {
  verifier: string;
  redirectUri: string;
  createdAt: number;
}

/** What `handleCallback` answers: the session, and the state the app may have carried through. */
export interface SignInResult {
  session: TokenSession;
  tokens: StoredTokens;
  state: string;
}

const PENDING_PREFIX = 'parley.pkce.';

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomToken(bytes: number): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier (RFC 7636). */
export async function codeChallengeOf(verifier: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/**
 * The authorization-code flow with PKCE for browser apps: `authorizeUrl()` makes a state and a
 * code_verifier, keeps them in `pendingStorage` under the state, and answers the URL to send the browser
 * to; `handleCallback(url)` checks the returned state against the kept one, exchanges the code at
 * /oauth/token, and answers a TokenSession holding the tokens.
 */
export function createSignIn(options: SignInOptions) {
  const pending = options.pendingStorage ?? platformStorage('sessionStorage') ?? memoryStorage();
  const tokenStorage = options.tokenStorage ?? platformStorage('localStorage') ?? memoryStorage();
  const base = trimBase(options.baseUrl);
  const credentials: ClientCredentials = { clientId: options.clientId, ...(options.clientSecret === undefined ? {} : { clientSecret: options.clientSecret }) };

  function sessionOf(initial?: StoredTokens): TokenSession {
    const sessionOptions: TokenSessionOptions = { ...options.session, ...credentials, baseUrl: base, storage: tokenStorage };
    if (options.fetch) sessionOptions.fetch = options.fetch;
    return new TokenSession(sessionOptions, initial);
  }

  return {
    /** The URL of /oauth/authorize for a new sign-in; `extra` adds parameters such as `nonce` or `prompt`. */
    async authorizeUrl(extra: Record<string, string> = {}): Promise<string> {
      const state = randomToken(24);
      const verifier = randomToken(32);
      const record: PendingSignIn = { verifier, redirectUri: options.redirectUri, createdAt: Date.now() };
      pending.setItem(PENDING_PREFIX + state, JSON.stringify(record));
      const query = new URLSearchParams({
        ...extra,
        response_type: 'code',
        client_id: options.clientId,
        redirect_uri: options.redirectUri,
        scope: options.scope ?? 'openid profile',
        state,
        code_challenge: await codeChallengeOf(verifier),
        code_challenge_method: 'S256',
      });
      return `${base}/oauth/authorize?${query}`;
    },

    /** Completes a sign-in from the URL the browser came back to (`location.href`). */
    async handleCallback(callbackUrl: string): Promise<SignInResult> {
      const params = new URL(callbackUrl).searchParams;
      const state = params.get('state') ?? '';
      const key = PENDING_PREFIX + state;
      const text = state === '' ? null : pending.getItem(key);
      // One use per state, whatever the outcome: a replayed callback finds nothing.
      if (text !== null) pending.removeItem(key);
      if (text === null) throw new ParleyError({ status: 400, code: 400000, message: 'The sign-in state is unknown or was already used.' });
      const error = params.get('error');
      if (error !== null) {
        throw new ParleyError({ status: 400, code: 400000, message: params.get('error_description') ?? error, body: Object.fromEntries(params) });
      }
      const code = params.get('code');
      if (code === null) throw new ParleyError({ status: 400, code: 400000, message: 'The callback carries no code.' });
      const record = JSON.parse(text) as PendingSignIn;
      const answer = await tokenRequest(
        base,
        credentials,
        { grant_type: 'authorization_code', code, redirect_uri: record.redirectUri, code_verifier: record.verifier },
        options.fetch ?? platformFetch,
      );
      const tokens = storedTokensOf(answer, (options.session?.now ?? Date.now)());
      return { session: sessionOf(tokens), tokens, state };
    },

    /** The session kept in token storage from an earlier sign-in, or null when there is none. */
    restore(): TokenSession | null {
      const session = sessionOf();
      return session.tokens === null ? null : session;
    },
  };
}
