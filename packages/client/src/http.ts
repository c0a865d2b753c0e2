import type { FetchLike } from './auth/oauth.js';
import type { TokenProvider } from './auth/token-provider.js';
import { retryAfterSeconds } from './errors.js';

/** When to send a refused request again. Off unless asked for. */
export interface RetryOptions {
  /** On 429, wait Retry-After seconds and send again. */
  rateLimited?: boolean;
  /** Sends in all, the first included (default 3). */
  maxAttempts?: number;
  /** A Retry-After above this many seconds is not waited for (default 60): the 429 is answered. */
  maxWaitSeconds?: number;
}

export interface AuthorizedFetchOptions {
  tokenProvider: TokenProvider | null;
  fetch: FetchLike;
  retry?: RetryOptions;
  /** How to wait before a retry (tests shorten it). */
  sleep?: (ms: number, signal: AbortSignal | null) => Promise<void>;
}

export function sleep(ms: number, signal: AbortSignal | null = null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * A fetch that adds `Authorization: Bearer` from the token provider; after a 401 it asks the provider for
 * a new token once and sends again; after a 429 it waits and sends again when `retry.rateLimited` asks.
 * The body is read once up front, so every send carries the same bytes.
 */
export function authorizedFetch(options: AuthorizedFetchOptions): FetchLike {
  const retry = options.retry ?? {};
  const maxAttempts = Math.max(1, retry.maxAttempts ?? 3);
  const wait = options.sleep ?? sleep;
  return async (request) => {
    const body = request.body === null ? null : await request.arrayBuffer();
    let refreshed = false;
    let token: string | null = options.tokenProvider ? await options.tokenProvider.getAccessToken() : null;
    for (let attempt = 1; ; attempt++) {
      const headers = new Headers(request.headers);
      if (token !== null) headers.set('authorization', `Bearer ${token}`);
      const response = await options.fetch(new Request(request.url, { method: request.method, headers, body, signal: request.signal }));
      if (response.status === 401 && token !== null && !refreshed && options.tokenProvider?.refresh) {
        refreshed = true;
        await response.body?.cancel();
        token = await options.tokenProvider.refresh(token);
        attempt--;
        continue;
      }
      if (response.status === 429 && retry.rateLimited && attempt < maxAttempts) {
        const seconds = retryAfterSeconds(response.headers.get('retry-after'));
        if (seconds <= (retry.maxWaitSeconds ?? 60)) {
          await response.body?.cancel();
          await wait(seconds * 1000, request.signal);
          continue;
        }
      }
      return response;
    }
  };
}
