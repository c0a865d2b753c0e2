import type { TypedApp } from '../../http/typed-app.js';

/**
 * Parley's icon: a speech bubble on indigo. The server answers /favicon.ico with it (browsers ask for
 * it on any page that names no icon), the sign-in pages name it inline (their CSP allows data: images
 * and nothing else from outside), and the console's build carries the same file as favicon.svg
 * (packages/console/public).
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#3b5bdb"/>' +
  '<path d="M9 8h14a3 3 0 0 1 3 3v8a3 3 0 0 1-3 3h-8l-5 4v-4H9a3 3 0 0 1-3-3v-8a3 3 0 0 1 3-3z" fill="#fff"/>' +
  '</svg>\n';

/** The icon as a data: URL, for a sign-in page's <link rel="icon">. */
export const FAVICON_DATA_URL = `data:image/svg+xml,${encodeURIComponent(FAVICON_SVG)}`;

/** GET /favicon.ico: the icon (an SVG, which browsers take by its type), cached for a day. No API: left out of /openapi.json. */
export function registerFavicon(app: TypedApp): void {
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG),
  );
}
