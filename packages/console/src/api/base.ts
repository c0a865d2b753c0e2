/**
 * Where the console and the server live. The build's base (vite `base`, default /console/) is the
 * console's path; the server's routes sit beside it, so a server published under a path prefix
 * (PARLEY_PUBLIC_URL https://example.com/chat, console built with CONSOLE_BASE=/chat/console/) works too.
 */
export const BASE_PATH = import.meta.env.BASE_URL.replace(/\/+$/, '');

const SERVER_PATH = BASE_PATH.replace(/\/console$/, '');

/** The server's URL: origin and path prefix, without a trailing slash. */
export const SERVER_URL = `${window.location.origin}${SERVER_PATH}`;

/** The absolute URL of a server path such as /api/v2/me. */
export function serverUrl(path: string): string {
  return `${SERVER_URL}${path}`;
}
