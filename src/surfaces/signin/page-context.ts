import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../../http/error-handler.js';
import { AppError } from '../../shared/errors.js';
import type { AuthorizeOutcome, AuthorizeService } from '../../modules/identity/authorize/authorize.service.js';
import { parseAuthorizationParameters } from '../../modules/identity/authorize/parameters.js';
import type { ClientsService } from '../../modules/identity/clients.service.js';
import { CSRF_COOKIE, type Csrf } from '../../modules/identity/csrf.js';
import type { LoginService } from '../../modules/identity/login.service.js';
import type { LogoutChecks } from '../../modules/identity/logout.js';
import type { PasswordResets } from '../../modules/identity/password-resets.js';
import { SESSION_COOKIE, type LoginSessions } from '../../modules/identity/sessions.js';
import type { FindUser } from '../../modules/identity/token/signin-user.js';
import { PAGE_HEADERS, renderErrorPage, renderLoginPage } from './login-page.js';

/**
 * What the sign-in pages (pages.routes.ts, logout.routes.ts) share: their dependencies, their
 * addresses, the cookies they set, and how they answer.
 */
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
  logout: LogoutChecks;
  /** The password-reset links' page (password-reset.routes.ts). */
  passwordResets: PasswordResets;
}

/** The query string of a request exactly as sent, for the lenient authorization-request reader. */
export function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

export function isForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

export const sendPage = (reply: FastifyReply, status: number, html: string): FastifyReply => reply.code(status).headers(PAGE_HEADERS).send(html);

/** What the sign-in pages share: their addresses, the cookies they set, and how they answer. */
export function createSignInPageContext(deps: SignInPageDeps) {
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
    // The contract's order (docs/contract.md, Sign-in): the session cookie is read first, then the request is checked.
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

export type SignInPageContext = ReturnType<typeof createSignInPageContext>;
