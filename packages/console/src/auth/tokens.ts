import { createSignIn, type TokenSession } from '@parley/client';
import { BASE_PATH, SERVER_URL } from '../api/base.js';

/** The OIDC client the server registers for the console (public, PKCE). */
export const CLIENT_ID = 'parley-console';
/** Where the app lives on the server; wouter's base and the redirect URIs start with it. */
export { BASE_PATH };

const ADMIN_TOKEN_KEY = 'parley.console.adminToken';
const storage = window.sessionStorage;

/**
 * Sign-in with PKCE: state and verifier wait in sessionStorage for the callback, and the tokens stay
 * in sessionStorage too, so closing the tab signs the person out of the console.
 */
export const signIn = createSignIn({
  baseUrl: SERVER_URL,
  clientId: CLIENT_ID,
  redirectUri: `${window.location.origin}${BASE_PATH}/callback`,
  scope: 'openid profile',
  pendingStorage: storage,
  tokenStorage: storage,
});

let oidcSession: TokenSession | null = signIn.restore();

const listeners = new Set<() => void>();

/** Tells the app (the session provider) that the credentials changed: signed in, refreshed away, signed out. */
export function onCredentialsChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function announce(): void {
  for (const listener of listeners) listener();
}

export function adoptOidcSession(session: TokenSession): void {
  storage.removeItem(ADMIN_TOKEN_KEY);
  oidcSession = session;
  announce();
}

export function adoptAdminToken(token: string): void {
  oidcSession?.signOut();
  oidcSession = null;
  storage.setItem(ADMIN_TOKEN_KEY, token);
  announce();
}

export function adminToken(): string | null {
  return storage.getItem(ADMIN_TOKEN_KEY);
}

export function hasCredentials(): boolean {
  return adminToken() !== null || oidcSession?.tokens != null;
}

/** The bearer token to send: the pasted admin token, or a fresh access token (refreshed before expiry). */
export async function currentToken(): Promise<string | null> {
  const pasted = adminToken();
  if (pasted !== null) return pasted;
  if (oidcSession === null || oidcSession.tokens === null) return null;
  return oidcSession.getAccessToken();
}

/**
 * A new access token after `rejected` was refused, or null when there is none to get (an admin token,
 * or a refresh token the server refused). TokenSession makes concurrent callers share one refresh.
 */
export async function refreshedToken(rejected: string): Promise<string | null> {
  if (adminToken() !== null || oidcSession === null) return null;
  try {
    return await oidcSession.refresh(rejected);
  } catch {
    return null;
  }
}

/** The ID token of the OIDC sign-in, for the logout request's hint. */
export function idToken(): string | null {
  return oidcSession?.tokens?.idToken ?? null;
}

/** Forgets every credential kept by the console. */
export function clearCredentials(): void {
  storage.removeItem(ADMIN_TOKEN_KEY);
  oidcSession?.signOut();
  oidcSession = null;
  announce();
}

/** The end_session request: the server ends its sign-in session and sends the browser back to the console. */
export function logoutUrl(hint: string | null): string {
  const query = new URLSearchParams({ client_id: CLIENT_ID, post_logout_redirect_uri: `${window.location.origin}${BASE_PATH}/` });
  if (hint !== null) query.set('id_token_hint', hint);
  return `${SERVER_URL}/logout?${query}`;
}
