import { ParleyError } from '../errors.js';
import type { TokenAnswer } from '../types.js';
import { type ClientCredentials, type FetchLike, platformFetch, tokenRequest } from './oauth.js';
import { type KeyValueStorage, type LockManagerLike, memoryStorage, platformLocks, type TokenProvider } from './token-provider.js';

/** The tokens of a signed-in user, as kept in storage. */
export interface StoredTokens {
  accessToken: string;
  refreshToken: string | null;
  /** When the access token expires, in epoch milliseconds. */
  expiresAt: number;
  scope: string;
  idToken: string | null;
}

export interface TokenSessionOptions extends ClientCredentials {
  baseUrl: string;
  /** Where the tokens live; share one storage between tabs (localStorage) so they share one refresh. */
  storage?: KeyValueStorage;
  storageKey?: string;
  /** The cross-tab lock; default `navigator.locks` when present. `null` turns it off. */
  locks?: LockManagerLike | null;
  fetch?: FetchLike;
  /** Refresh this long before the access token expires (default 30 s). */
  refreshSkewMs?: number;
  now?: () => number;
  /** Told of every change: new tokens after a refresh, null after sign-out or a refused refresh. */
  onChange?: (tokens: StoredTokens | null) => void;
}

/** The stored form of a token answer; a refresh answer without a refresh token keeps the previous one. */
export function storedTokensOf(answer: TokenAnswer, now: number, previousRefresh: string | null = null): StoredTokens {
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? previousRefresh,
    expiresAt: now + answer.expires_in * 1000,
    scope: answer.scope,
    idToken: answer.id_token ?? null,
  };
}

/**
 * A signed-in user's tokens, and the one refresh that replaces them. The server rotates refresh tokens,
 * so two refreshes with the same refresh token race and one loses the session: every refresh goes
 * through one promise per session (concurrent callers share it), and through a Web Lock named after the
 * storage key when the platform has one, so tabs sharing the storage refresh one at a time and each
 * re-reads the storage inside the lock, finding the tokens another tab just stored.
 */
export class TokenSession implements TokenProvider {
  readonly #options: TokenSessionOptions;
  readonly #storage: KeyValueStorage;
  readonly #key: string;
  readonly #locks: LockManagerLike | null;
  readonly #now: () => number;
  #inflight: Promise<string> | null = null;

  constructor(options: TokenSessionOptions, initial?: StoredTokens) {
    this.#options = options;
    this.#storage = options.storage ?? memoryStorage();
    this.#key = options.storageKey ?? `parley.tokens.${options.clientId}`;
    this.#locks = options.locks === undefined ? platformLocks() : options.locks;
    this.#now = options.now ?? Date.now;
    if (initial) this.#write(initial);
  }

  /** The stored tokens, or null when signed out. */
  get tokens(): StoredTokens | null {
    const text = this.#storage.getItem(this.#key);
    if (text === null) return null;
    try {
      return JSON.parse(text) as StoredTokens;
    } catch {
      return null;
    }
  }

  /** A token good for at least the refresh skew, refreshing first when the stored one is too old. */
  async getAccessToken(): Promise<string> {
    const tokens = this.tokens;
    if (tokens === null) throw signedOut('Not signed in.');
    return this.#fresh(tokens) ? tokens.accessToken : this.refresh(tokens.accessToken);
  }

  /**
   * A new access token after `rejected` was refused. When the stored token already differs from
   * `rejected` (another caller or tab refreshed meanwhile) it is answered without a request.
   */
  refresh(rejected?: string): Promise<string> {
    const tokens = this.tokens;
    if (tokens !== null && rejected !== undefined && tokens.accessToken !== rejected && this.#fresh(tokens)) return Promise.resolve(tokens.accessToken);
    if (this.#inflight === null) {
      const stale = rejected ?? tokens?.accessToken;
      const work = () => this.#refreshUnderLock(stale);
      this.#inflight = (this.#locks ? this.#locks.request(`parley-refresh:${this.#key}`, work) : work()).finally(() => {
        this.#inflight = null;
      });
    }
    return this.#inflight;
  }

  /** Forgets the tokens (the server's session and refresh token are left to expire). */
  signOut(): void {
    this.#storage.removeItem(this.#key);
    this.#options.onChange?.(null);
  }

  async #refreshUnderLock(stale: string | undefined): Promise<string> {
    // Inside the lock: another tab may have refreshed while this one waited.
    const latest = this.tokens;
    if (latest !== null && latest.accessToken !== stale && this.#fresh(latest)) return latest.accessToken;
    if (latest?.refreshToken == null) throw signedOut('The session cannot be refreshed: sign in again.');
    const { baseUrl, clientId, clientSecret } = this.#options;
    let answer: TokenAnswer;
    try {
      answer = await tokenRequest(
        baseUrl,
        { clientId, ...(clientSecret === undefined ? {} : { clientSecret }) },
        { grant_type: 'refresh_token', refresh_token: latest.refreshToken },
        this.#options.fetch ?? platformFetch,
      );
    } catch (error) {
      // A refused refresh token (used, expired, revoked) ends the session; a network error keeps it.
      if (error instanceof ParleyError && (error.status === 400 || error.status === 401)) this.signOut();
      throw error;
    }
    const next = storedTokensOf(answer, this.#now(), latest.refreshToken);
    this.#write(next);
    return next.accessToken;
  }

  #fresh(tokens: StoredTokens): boolean {
    return tokens.expiresAt - (this.#options.refreshSkewMs ?? 30_000) > this.#now();
  }

  #write(tokens: StoredTokens): void {
    this.#storage.setItem(this.#key, JSON.stringify(tokens));
    this.#options.onChange?.(tokens);
  }
}

function signedOut(message: string): ParleyError {
  return new ParleyError({ status: 401, code: 400100, message });
}
