import { toAppError } from '../../http/error-handler.js';
import type { TypedApp } from '../../http/typed-app.js';
import { parseAuthorizationParameters } from '../../modules/identity/authorize/parameters.js';
import { SESSION_TTL_MS } from '../../modules/identity/sessions.js';
import { renderErrorPage, renderSignedInPage } from './login-page.js';
import { registerLogoutRoutes } from './logout.routes.js';
import { registerPasswordResetPages } from './password-reset.routes.js';
import { createSignInPageContext, isForm, rawQueryOf, type SignInPageContext, type SignInPageDeps, sendPage } from './page-context.js';
import { AUTHORIZE_FORM_SCHEMA, AUTHORIZE_SCHEMA, LOGIN_FORM_SCHEMA, LOGIN_PAGE_SCHEMA } from './pages.schemas.js';
import { readsRequestAsSent } from './signin.schemas.js';

/**
 * The browser side of sign-in: the authorization endpoint (GET and POST), the login page and
 * sign-out (logout.routes.ts). Failures here are HTML pages, not JSON, because a person is looking at them.
 */
export function registerSignInPages(app: TypedApp, deps: SignInPageDeps): void {
  const page = createSignInPageContext(deps);

  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.kind === 'unexpected') request.log.error({ err: error }, 'unexpected error on a sign-in page');
    return sendPage(reply, appError.httpStatus, renderErrorPage({ title: 'Sign-in failed', message: appError.message }));
  });

  registerAuthorizeRoutes(app, page);
  registerLoginRoutes(app, deps, page);
  registerLogoutRoutes(app, deps, page);
  registerPasswordResetPages(app, deps, page);
}

function registerAuthorizeRoutes(app: TypedApp, page: SignInPageContext): void {
  const { authorizeFrom } = page;

  app.get('/oauth/authorize', { validatorCompiler: readsRequestAsSent, schema: AUTHORIZE_SCHEMA }, (request, reply) =>
    authorizeFrom(request, reply, rawQueryOf(request), 302),
  );

  app.post('/oauth/authorize', { validatorCompiler: readsRequestAsSent, schema: AUTHORIZE_FORM_SCHEMA }, (request, reply) => {
    const text = isForm(request) && typeof request.body === 'string' ? request.body : '';
    return authorizeFrom(request, reply, text, 303);
  });
}

function registerLoginRoutes(app: TypedApp, deps: SignInPageDeps, page: SignInPageContext): void {
  const { csrf, sessions } = deps;
  const { loginAction, logoutAction, cookieOptions, sessionCookie, csrfCookie, csrfTokenOf, sendOutcome, loginPage, clientNameOf } = page;

  app.get('/login', { schema: LOGIN_PAGE_SCHEMA }, async (request, reply) => {
    const query = rawQueryOf(request);
    const params = parseAuthorizationParameters(query);
    const authorize = params.get('client_id') !== null ? query : null;
    if (authorize === null) {
      const session = await sessions.current(request.cookies[sessionCookie]);
      const user = session ? await deps.findUser(session.user_id) : undefined;
      if (user) return sendPage(reply, 200, renderSignedInPage({ username: user.username ?? user.id, logoutAction, csrf: csrfTokenOf(request, reply) }));
    }
    return loginPage(request, reply, {
      status: 200,
      authorize,
      clientName: await clientNameOf(authorize),
      username: params.get('login_hint') ?? '',
      error: null,
    });
  });

  app.post('/login', { validatorCompiler: readsRequestAsSent, schema: LOGIN_FORM_SCHEMA }, async (request, reply) => {
    const form = new URLSearchParams(isForm(request) && typeof request.body === 'string' ? request.body : '');
    const authorizeText = form.get('authorize');
    const authorize = authorizeText !== null && authorizeText !== '' ? authorizeText : null;
    const username = (form.get('username') ?? '').trim().slice(0, 128);
    const clientName = await clientNameOf(authorize);
    const again = (status: number, error: string, headers?: Record<string, string>) =>
      loginPage(request, reply, { status, authorize, clientName, username, error, ...(headers ? { headers } : {}) });

    if (!csrf.verify(request.cookies[csrfCookie], form.get('csrf'))) {
      return again(403, 'This sign-in form has expired or was not sent from this site. Please try again.');
    }
    if (username === '' || (form.get('password') ?? '') === '') return again(400, 'Enter your username and password.');
    const result = await deps.login.login(username, form.get('password') ?? '', request.ip);
    if (!result.ok) {
      if (result.reason === 'throttled') {
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        return again(429, `Too many failed sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
          'retry-after': String(result.retryAfterSeconds),
        });
      }
      if (result.reason === 'banned') return again(401, 'User is banned from the system.');
      return again(401, 'The username or password is incorrect.');
    }

    await sessions.end(request.cookies[sessionCookie]);
    const { cookieValue, session } = await sessions.start(result.user.id);
    reply.setCookie(sessionCookie, cookieValue, { ...cookieOptions, maxAge: Math.floor(SESSION_TTL_MS / 1000) });
    if (authorize === null) return reply.redirect(loginAction, 303);
    const outcome = await deps.authorize.authorize(parseAuthorizationParameters(authorize), session, { justAuthenticated: true });
    if (outcome.kind === 'login') return again(401, 'Signing in did not complete. Please try again.');
    return sendOutcome(request, reply, outcome, 303);
  });
}
