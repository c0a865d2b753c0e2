import createClient from 'openapi-fetch';
import type { paths } from '@parley/client';
import { clearCredentials, currentToken, refreshedToken } from '../auth/tokens.js';
import { SERVER_URL } from './base.js';
import { ApiError, apiErrorOf } from './errors.js';

export { ApiError, type FieldProblem, messageOf } from './errors.js';

async function send(request: Request, token: string | null): Promise<Response> {
  const headers = new Headers(request.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  try {
    return await fetch(new Request(request, { headers }));
  } catch {
    throw new ApiError(0, 0, 'The server could not be reached. Check the connection and try again.');
  }
}

/**
 * fetch with the console's bearer token. A 401 gets one refresh (shared by concurrent callers, see
 * auth/tokens.ts) and one retry; when that fails too, the credentials are dropped and the session
 * provider shows the login screen.
 */
export async function authedFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const token = await currentToken().catch(() => null);
  const response = await send(request, token);
  if (response.status !== 401 || token === null) return response;
  const fresh = await refreshedToken(token);
  if (fresh === null) {
    clearCredentials();
    return response;
  }
  const second = await send(retry, fresh);
  if (second.status === 401) clearCredentials();
  return second;
}

/**
 * fetch with the console's token and nothing more: for routes outside the admin API (avatars at
 * /file/view) whose 401 says nothing about the console's sign-in, so it must not end it.
 */
export async function tokenFetch(request: Request): Promise<Response> {
  return send(request, await currentToken().catch(() => null));
}

/** The typed client of the admin API (paths from the SDK's generated OpenAPI types). */
export const api = createClient<paths>({ baseUrl: SERVER_URL, fetch: authedFetch });

/** The answer's data, or the ApiError of its envelope. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok || error !== undefined) throw apiErrorOf(response.status, error);
  return data as T;
}
