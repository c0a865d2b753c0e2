import { BASE_PATH } from '../api/base.js';

/**
 * The console page a signed-out visit asked for, kept in this tab's sessionStorage through the sign-in
 * (the login page and the OAuth callback leave the app), and opened once it is over.
 */
const KEY = 'parley.console.returnTo';
const storage = window.sessionStorage;

/** The sign-in screens themselves: returning to them after signing in would lead nowhere. */
const SIGN_IN_PATHS = ['/login', '/callback'];

/**
 * `path` when it names a page of this console (a path under its base, on this origin, not a sign-in
 * screen), else null: a stored value is never trusted to lead elsewhere.
 */
export function consolePath(path: string): string | null {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\')) return null;
  let url: URL;
  try {
    url = new URL(`${BASE_PATH}${path}`, window.location.origin);
  } catch {
    return null;
  }
  if (url.origin !== window.location.origin || !url.pathname.startsWith(`${BASE_PATH}/`)) return null;
  const inside = url.pathname.slice(BASE_PATH.length);
  if (SIGN_IN_PATHS.some((screen) => inside === screen || inside.startsWith(`${screen}/`))) return null;
  return `${inside}${url.search}${url.hash}`;
}

/** Keeps the page a signed-out visit asked for (a path inside the console, with its query). */
export function rememberReturnPath(path: string): void {
  const checked = consolePath(path);
  if (checked === null || checked === '/') storage.removeItem(KEY);
  else storage.setItem(KEY, checked);
}

/** The page to open after signing in, once: the one remembered, or the console's home. */
export function takeReturnPath(): string {
  const stored = storage.getItem(KEY);
  storage.removeItem(KEY);
  return (stored === null ? null : consolePath(stored)) ?? '/';
}
