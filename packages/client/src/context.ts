import type { Client } from 'openapi-fetch';
import type { FetchLike } from './auth/oauth.js';
import { errorFromResponse } from './errors.js';
import type { paths } from './generated/openapi.js';
import type { RetryOptions } from './http.js';

/** Per-call options of the typed methods. */
export interface CallOptions {
  retry?: RetryOptions;
  signal?: AbortSignal;
}

/** What the typed methods share: the openapi-fetch client, and a fetch per retry policy. */
export interface ClientContext {
  api: Client<paths>;
  fetchFor(options?: CallOptions): FetchLike;
}

/** An openapi-fetch result: the data, or the error body with the response that carried it. */
interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; anything else is thrown as a ParleyError (RateLimitError on 429). */
export function unwrap<T>(result: FetchResult<T>): T {
  if (!result.response.ok || result.error !== undefined) throw errorFromResponse(result.response, result.error);
  return result.data as T;
}
