import type { FastifyInstance } from 'fastify';

/**
 * CORS for what a browser app calls itself: OpenID discovery, the JWKS, the token endpoint and
 * userinfo (a single-page app signs in as a public client with PKCE), the client API, the tray and
 * avatars. Any origin, and never credentials: these requests carry their authority in a header or
 * the body, which another origin cannot take from the user, so naming every origin gives nothing
 * away; cookies are never read cross-origin. The sign-in pages (/login, /oauth/authorize, /logout)
 * are browser navigations and the admin and bot APIs are called from servers: no CORS there.
 *
 * Written here rather than with @fastify/cors: its preflight route answers every OPTIONS request of
 * the server, and refuses some with its own plain-text 400, outside the error envelope.
 */
const CORS_PATHS = [/(^|\/)\.well-known\//, /^\/oauth\/(token|jwks)$/, /^\/userinfo$/, /^\/client\/v1\//, /^\/notifications\//, /^\/file\/view\//];

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PUT, DELETE',
  'access-control-allow-headers': 'authorization, content-type, x-request-id',
  'access-control-max-age': '600',
};

function corsAllowed(url: string): boolean {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  return CORS_PATHS.some((pattern) => pattern.test(path));
}

export function installCors(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!corsAllowed(request.url)) return done();
    // Sent with or without an Origin: the answer is the same for everyone, so a shared cache that
    // stored a copy fetched by a server (discovery, the JWKS are cacheable) still serves browsers.
    reply.header('access-control-allow-origin', '*');
    if (request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) {
      // A preflight: answered here, for routes that have no OPTIONS handler of their own.
      void reply.code(204).headers(PREFLIGHT_HEADERS).send();
      return;
    }
    // Besides the safelisted ones, what a client reads: the rate limit's wait, the bearer challenge,
    // the body fields that were ignored.
    reply.header('access-control-expose-headers', 'retry-after, www-authenticate, x-request-id, parley-ignored-fields');
    done();
  });
}
