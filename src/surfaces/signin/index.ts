import cookie from '@fastify/cookie';
import type { Container } from '../../container.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AppError } from '../../shared/errors.js';
import { registerFavicon } from './favicon.js';
import { registerOAuthApiRoutes, registerOAuthPublicRoutes } from './oauth.routes.js';
import { rawQueryOf } from './page-context.js';
import { registerSignInPages } from './pages.routes.js';

/**
 * OpenID Connect sign-in at the root (docs/contract.md, Sign-in): discovery, keys, authorize and the login
 * pages, token, userinfo, avatars. Each route authenticates as its protocol says (client credentials,
 * session cookie, access token).
 */
export function signInSurface(container: Container) {
  return async function signIn(scope: TypedApp): Promise<void> {
    const { identity, tokens } = container;
    await scope.register(cookie);
    // OAuth bodies are plain RFC forms (no nested keys): routes read the raw text themselves. No
    // sign-in route reads JSON, so a JSON body is handed over as text too, unparsed: the route refuses
    // it (the token endpoint) or ignores it (the pages, userinfo) as its protocol says.
    for (const type of ['application/x-www-form-urlencoded', 'application/json']) {
      scope.removeContentTypeParser(type);
      scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
        done(null, body);
      });
    }
    // Raw texts skip the app's NUL check, and PostgreSQL refuses NUL in text. No OAuth value holds
    // one: refuse it up front, as each route answers a bad request (an OAuth error, or a page). The
    // query is checked on arrival, before the app's own check of documented query strings (a 422).
    const refuseNul = (text: string): void => {
      if (holdsNul(text)) throw new AppError('badRequest', 'The request contains a NUL character.');
    };
    scope.addHook('onRequest', async (request) => refuseNul(rawQueryOf(request)));
    scope.addHook('preValidation', async (request) => {
      if (typeof request.body === 'string') refuseNul(request.body);
    });
    registerFavicon(scope);
    registerOAuthPublicRoutes(scope, { publicUrl: identity.publicUrl, issuer: identity.issuer, rsa: identity.rsa, avatars: identity.avatars, tokens });
    await scope.register(async (api) => {
      registerOAuthApiRoutes(api, { token: identity.token, tokens, findUser: identity.findUser, networkId: identity.networkId, publicUrl: identity.publicUrl });
    });
    await scope.register(async (pages) => {
      registerSignInPages(pages, {
        basePath: identity.basePath,
        issuer: identity.issuer,
        secureCookies: identity.publicUrl.startsWith('https:'),
        authorize: identity.authorize,
        sessions: identity.sessions,
        login: identity.login,
        csrf: identity.csrf,
        clients: identity.clients,
        findUser: identity.findUser,
        logout: identity.logout,
        passwordResets: identity.passwordResets,
      });
    });
  };
}

/** A NUL written raw or percent-encoded in a query string or form. */
function holdsNul(text: string): boolean {
  return text.includes('\u0000') || /%00/.test(text);
}
