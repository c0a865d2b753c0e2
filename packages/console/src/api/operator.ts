import { serverUrl } from './base.js';
import { ApiError, api, authedFetch, call } from './client.js';
import { apiErrorOf } from './errors.js';
import type { UserUpdate } from './types.js';

/**
 * Admin routes the console calls outside the typed client: their types are declared here, small and
 * local, until the SDK's generated types carry them.
 */

/** POST /api/v2/users/{userId}/password-reset: a one-time link, valid 30 minutes. */
export interface PasswordResetLink {
  url: string;
  expiresAt: string;
}

/** One live login session of GET /api/v2/sessions. */
export interface LiveSession {
  sessionId: string;
  userId: string;
  displayName: string;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
}

export interface LiveSessionsPage {
  sessions: LiveSession[];
  paging: { next: string | null; prev: string | null };
}

type Query = Record<string, string | number | undefined>;

/** A JSON request to the admin API with the console's token; answers the parsed body or throws the envelope's ApiError. */
export async function adminRequest<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
  const url = new URL(serverUrl(path));
  for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
  const init: RequestInit = { method };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  if (options.body !== undefined) init.headers = { 'content-type': 'application/json' };
  const response = await authedFetch(new Request(url, init));
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok) throw apiErrorOf(response.status, parsed);
  return parsed as T;
}

export const makePasswordResetLink = (userId: string) => adminRequest<PasswordResetLink>('POST', `/api/v2/users/${encodeURIComponent(userId)}/password-reset`);

/** The "Create user" form's fields; empty ones are not sent. */
export interface NewUserFields {
  userId: string;
  displayName: string;
  username: string;
  password: string;
  email: string;
}

/** PUT /api/v2/users creates or updates: the id is checked first, so a create never changes someone else. */
export async function createUserIfNew(fields: NewUserFields) {
  const userId = fields.userId.trim();
  const existing = await call(api.GET('/api/v2/users/{userId}', { params: { path: { userId } } })).then(
    () => true,
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    },
  );
  if (existing) throw new ApiError(409, 400315, `A user with the id “${userId}” exists already.`);
  const body: UserUpdate = { userId };
  if (fields.displayName.trim() !== '') body.displayName = fields.displayName.trim();
  if (fields.username.trim() !== '') body.username = fields.username.trim();
  if (fields.password !== '') body.password = fields.password;
  if (fields.email.trim() !== '') body.email = fields.email.trim();
  return call(api.PUT('/api/v2/users', { body }));
}
