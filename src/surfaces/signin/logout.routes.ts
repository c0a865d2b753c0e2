import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import { type AuthorizationParameters, parseAuthorizationParameters } from '../../modules/identity/authorize/parameters.js';
import { type CheckedLogout, LOGOUT_PARAMETERS, LogoutRefused } from '../../modules/identity/logout.js';
import { renderErrorPage, renderLogoutPage } from './login-page.js';
import { isForm, rawQueryOf, type SignInPageContext, type SignInPageDeps, sendPage } from './page-context.js';
import { LOGOUT_FORM_SCHEMA, LOGOUT_PAGE_SCHEMA } from './pages.schemas.js';
import { readsRequestAsSent } from './signin.schemas.js';

/** The parameters a confirmation carries back: those the request's checks read. */
const CARRIED = new Set<string>(['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state']);

function carriedParameters(params: AuthorizationParameters): Array<[string, string]> {
  const carried: Array<[string, string]> = [];
  for (const name of CARRIED) {
    const value = params.get(name);
    if (value !== null) carried.push([name, value]);
  }
  return carried;
}

/** The logout parameters of a posted form as a query string, as sent (repeats kept, so they are still refused). */
function logoutQuery(params: AuthorizationParameters): string {
  const names = new Set<string>(LOGOUT_PARAMETERS);
  return params.pairs
    .filter((pair) => names.has(pair.name))
    .map((pair) => `${encodeURIComponent(pair.name)}=${pair.rawValue}`)
    .join('&');
}

/**
 * Sign-out (/logout), which is also the end_session_endpoint of OpenID Connect RP-Initiated Logout
 * 1.0: the person's own sign-out page and form, and logout requests from clients (GET or POST, with
 * id_token_hint, client_id, post_logout_redirect_uri, state).
 */
export function registerLogoutRoutes(app: TypedApp, deps: SignInPageDeps, page: SignInPageContext): void {
  const { csrf, sessions } = deps;
  const { logoutAction, cookieOptions, sessionCookie, csrfCookie, csrfTokenOf } = page;

  /**
   * A logout request: refused (an error page, nothing done), asked (the confirmation page), or done
   * (the session row deleted, its cookie cleared, then the client's post-logout URI or the signed-out
   * page). Section 2: the person is asked unless the request carries a valid ID token of the person
   * signed in here (`confirmed`: they answered the question).
   */
  async function endSession(
    request: FastifyRequest,
    reply: FastifyReply,
    params: AuthorizationParameters,
    input: { confirmed: boolean; status: 302 | 303 },
  ): Promise<FastifyReply> {
    let checked: CheckedLogout;
    try {
      checked = await deps.logout.check(params);
    } catch (error) {
      if (!(error instanceof LogoutRefused)) throw error;
      return sendPage(reply, 400, renderErrorPage({ title: 'This sign-out request cannot be completed', message: error.message }));
    }
    const cookieValue = request.cookies[sessionCookie];
    const session = await sessions.current(cookieValue);
    if (session !== null && !input.confirmed && checked.hintedSubject !== session.user_id) {
      const user = await deps.findUser(session.user_id);
      const html = renderLogoutPage({
        username: user?.username ?? session.user_id,
        logoutAction,
        csrf: csrfTokenOf(request, reply),
        done: false,
        clientName: checked.client?.name ?? null,
        carried: carriedParameters(params),
      });
      return sendPage(reply, 200, html);
    }
    if (cookieValue !== undefined) {
      await sessions.end(cookieValue);
      reply.clearCookie(sessionCookie, cookieOptions);
    }
    // Section 3: to the client only with a URI it registered; without one, the signed-out page.
    if (checked.redirectTo !== null) return reply.header('cache-control', 'no-store').redirect(checked.redirectTo, input.status);
    return sendPage(reply, 200, renderLogoutPage({ username: null, logoutAction, csrf: '', done: true }));
  }

  app.get('/logout', { validatorCompiler: readsRequestAsSent, schema: LOGOUT_PAGE_SCHEMA }, (request, reply) =>
    endSession(request, reply, parseAuthorizationParameters(rawQueryOf(request)), { confirmed: false, status: 302 }),
  );

  app.post('/logout', { validatorCompiler: readsRequestAsSent, schema: LOGOUT_FORM_SCHEMA }, async (request, reply) => {
    const text = isForm(request) && typeof request.body === 'string' ? request.body : '';
    const params = parseAuthorizationParameters(text);
    if (new URLSearchParams(text).has('csrf')) {
      // The sign-out form (the person's own, or a confirmation): it must come from our page.
      if (!csrf.verify(request.cookies[csrfCookie], params.get('csrf'))) {
        return sendPage(reply, 403, renderErrorPage({ title: 'Sign-out failed', message: 'This sign-out form has expired. Open the sign-out page again.' }));
      }
      return endSession(request, reply, params, { confirmed: true, status: 303 });
    }
    // A logout request a client's page posted. From another site the browser withholds the
    // SameSite=Lax session cookie, so the same request goes on as a GET navigation, which carries it.
    if (request.cookies[sessionCookie] === undefined) {
      const query = logoutQuery(params);
      return reply.header('cache-control', 'no-store').redirect(query === '' ? logoutAction : `${logoutAction}?${query}`, 303);
    }
    return endSession(request, reply, params, { confirmed: false, status: 303 });
  });
}
