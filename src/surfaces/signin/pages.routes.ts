import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError, toAppError } from '../../http/error-handler.js';
import { AppError } from '../../shared/errors.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { AuthorizeOutcome, AuthorizeService } from '../../modules/identity/authorize/authorize.service.js';
import { parseAuthorizationParameters } from '../../modules/identity/authorize/parameters.js';
import type { ClientsService } from '../../modules/identity/clients.service.js';
import { CSRF_COOKIE, type Csrf } from '../../modules/identity/csrf.js';
import { PAGE_HEADERS, renderErrorPage, renderLoginPage, renderLogoutPage, renderSignedInPage } from './login-page.js';
import type { LoginService } from '../../modules/identity/login.service.js';
import { SESSION_COOKIE, SESSION_TTL_MS, type LoginSessions } from '../../modules/identity/sessions.js';
import type { FindUser } from '../../modules/identity/token/signin-user.js';
import { AUTHORIZE_FORM_SCHEMA, AUTHORIZE_SCHEMA, LOGIN_FORM_SCHEMA, LOGIN_PAGE_SCHEMA, LOGOUT_FORM_SCHEMA, LOGOUT_PAGE_SCHEMA } from './pages.schemas.js';
import { readsRequestAsSent } from './signin.schemas.js';

export interface SignInPageDeps {
  /** The path of PUBLIC_URL ("" at the root), so links work behind a proxy that mounts us deeper. */
  basePath: string;
  issuer: string;
  secureCookies: boolean;
  authorize: AuthorizeService;
  sessions: LoginSessions;
  login: LoginService;
  csrf: Csrf;
  clients: ClientsService;
  findUser: FindUser;
}

/** The query string of a request exactly as sent, for the lenient authorization-request reader. */
export function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

const sendPage = (reply: FastifyReply, status: number, html: string): FastifyReply => reply.code(status).headers(PAGE_HEADERS).send(html);

/** What the sign-in pages share: their addresses, the cookies they set, and how they answer. */
function createSignInPageContext(deps: SignInPageDeps) {
  const { basePath, csrf, sessions } = deps;
  const loginAction = `${basePath}/login`;
  const logoutAction = `${basePath}/logout`;
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure: deps.secureCookies, path: '/' };
  // Behind https the names carry the __Host- prefix: a browser then takes them only Secure, for this
  // host (no Domain) and Path=/, so a sibling subdomain cannot plant a session or CSRF cookie here.
  // Plain http (local use) cannot: the prefix needs Secure.
  const prefix = deps.secureCookies ? '__Host-' : '';
  const sessionCookie = `${prefix}${SESSION_COOKIE}`;
  const csrfCookie = `${prefix}${CSRF_COOKIE}`;

  /** The form's CSRF token; sets the CSRF cookie when the browser has none yet. */
  function csrfTokenOf(request: FastifyRequest, reply: FastifyReply): string {
    let value = request.cookies[csrfCookie];
    if (!value || value.length > 100) {
      value = csrf.newCookieValue();
      reply.setCookie(csrfCookie, value, cookieOptions);
    }
    return csrf.tokenFor(value);
  }

  function sendOutcome(request: FastifyRequest, reply: FastifyReply, outcome: AuthorizeOutcome, status: 302 | 303): FastifyReply {
    if (outcome.kind === 'redirect') {
      // A URI registered before registration refused non-ASCII cannot be a header: a page, not a 500.
      if (!/^[\x20-\x7e]+$/.test(outcome.location)) {
        return sendPage(
          reply,
          400,
          renderErrorPage({
            title: 'This sign-in request cannot be completed',
            message: 'The registered redirect_uri is not plain ASCII; the operator must register it percent-encoded.',
          }),
        );
      }
      return reply.header('cache-control', 'no-store').redirect(outcome.location, status);
    }
    if (outcome.kind === 'login') return reply.header('cache-control', 'no-store').redirect(`${loginAction}?${outcome.query}`, status);
    if (wantsJson(request)) {
      return sendError(reply, new AppError('badRequest', outcome.message, { oauthError: outcome.error }));
    }
    return sendPage(reply, 400, renderErrorPage({ title: 'This sign-in request cannot be completed', message: outcome.message, code: outcome.error }));
  }

  async function authorizeFrom(request: FastifyRequest, reply: FastifyReply, text: string, status: 302 | 303): Promise<FastifyReply> {
    // SPEC.md order: the session cookie is read first, then the request is checked.
    const session = await sessions.current(request.cookies[sessionCookie]);
    return sendOutcome(request, reply, await deps.authorize.authorize(parseAuthorizationParameters(text), session), status);
  }

  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    input: { status: number; authorize: string | null; clientName: string | null; username: string; error: string | null; headers?: Record<string, string> },
  ): FastifyReply {
    const html = renderLoginPage({ action: loginAction, csrf: csrfTokenOf(request, reply), ...input });
    return sendPage(reply.headers(input.headers ?? {}), input.status, html);
  }

  async function clientNameOf(query: string | null): Promise<string | null> {
    const clientId = query === null ? null : parseAuthorizationParameters(query).get('client_id');
    if (clientId === null || clientId.length > 64) return null;
    return (await deps.clients.find(clientId))?.name ?? null;
  }

  return { loginAction, logoutAction, cookieOptions, sessionCookie, csrfCookie, csrfTokenOf, sendOutcome, authorizeFrom, loginPage, clientNameOf };
}

type SignInPageContext = ReturnType<typeof createSignInPageContext>;

/**
 * The browser side of sign-in: the authorization endpoint (GET and POST), the login page and
 * logout. Failures here are HTML pages, not JSON, because a person is looking at them.
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

function registerLogoutRoutes(app: TypedApp, deps: SignInPageDeps, page: SignInPageContext): void {
  const { csrf, sessions } = deps;
  const { logoutAction, cookieOptions, sessionCookie, csrfCookie, csrfTokenOf } = page;

  app.get('/logout', { schema: LOGOUT_PAGE_SCHEMA }, async (request, reply) => {
    const session = await sessions.current(request.cookies[sessionCookie]);
    const user = session ? await deps.findUser(session.user_id) : undefined;
    const html = renderLogoutPage({ username: user ? (user.username ?? user.id) : null, logoutAction, csrf: csrfTokenOf(request, reply), done: false });
    return sendPage(reply, 200, html);
  });

  app.post('/logout', { validatorCompiler: readsRequestAsSent, schema: LOGOUT_FORM_SCHEMA }, async (request, reply) => {
    const form = new URLSearchParams(isForm(request) && typeof request.body === 'string' ? request.body : '');
    if (!csrf.verify(request.cookies[csrfCookie], form.get('csrf'))) {
      return sendPage(reply, 403, renderErrorPage({ title: 'Sign-out failed', message: 'This sign-out form has expired. Open the sign-out page again.' }));
    }
    await sessions.end(request.cookies[sessionCookie]);
    reply.clearCookie(sessionCookie, cookieOptions);
    return sendPage(reply, 200, renderLogoutPage({ username: null, logoutAction, csrf: '', done: true }));
  });
}
