import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { passwordProblem } from '../../modules/identity/password-resets.js';
import { renderErrorPage } from './login-page.js';
import { isForm, rawQueryOf, type SignInPageContext, type SignInPageDeps, sendPage } from './page-context.js';
import { RESET_LINK_REFUSED, renderResetDonePage, renderResetPage } from './reset-page.js';
import { AsSent, FORM, readsRequestAsSent } from './signin.schemas.js';

const tag = { tags: ['sign-in'] };
const HtmlPage = Type.String({ description: 'The HTML page' });
const page = (description: string) => ({ description, content: { 'text/html': { schema: HtmlPage } } });
const TOKEN = '3q2-7wAAAAHq0kLmN5gTz4vXbYc1sRiUoPe9dWfAhJk';

const ResetQuery = AsSent<Record<string, string>>(
  Type.Object(
    { token: Type.String({ description: 'The token of the link an admin made (POST /api/v2/users/{userId}/password-reset)' }) },
    { examples: [{ token: TOKEN }] },
  ),
);

const ResetForm = AsSent<string>(
  Type.Object(
    {
      token: Type.String({ description: 'The link token, as the page carries it' }),
      csrf: Type.String({ description: "The page's anti-forgery token" }),
      password: Type.String({ description: 'The new password: 8 to 256 characters' }),
      confirmation: Type.String({ description: 'The new password again' }),
    },
    { examples: [{ token: TOKEN, csrf: 'k3Jd9sQ0vX1mZp7aTq4LwB', password: 'a brand new password', confirmation: 'a brand new password' }] },
  ),
);

const REFUSED = page('The link is unknown, replaced, used or expired (one page for all)');

/**
 * The page a password-reset link opens: a form for the new password (the login page's CSRF scheme),
 * then the link is used once, the password set and the user signed out everywhere.
 */
export function registerPasswordResetPages(app: TypedApp, deps: SignInPageDeps, context: SignInPageContext): void {
  const { csrf, passwordResets } = deps;
  const { csrfCookie, csrfTokenOf, loginAction } = context;
  const action = `${deps.basePath}/reset-password`;
  const refused = (reply: Parameters<typeof sendPage>[0]) => sendPage(reply, 400, renderErrorPage(RESET_LINK_REFUSED));

  app.get(
    '/reset-password',
    {
      validatorCompiler: readsRequestAsSent,
      schema: {
        ...tag,
        summary: 'The password-reset page',
        description: 'Opened from a link an admin made: the form for a new password while the link is live, else an error page that does not say why.',
        querystring: ResetQuery,
        response: { 200: page('The form for a new password'), 400: REFUSED, 500: page('Unexpected error') },
      },
    },
    async (request, reply) => {
      const token = new URLSearchParams(rawQueryOf(request)).get('token') ?? '';
      if (!(await passwordResets.isLive(token))) return refused(reply);
      return sendPage(reply, 200, renderResetPage({ action, csrf: csrfTokenOf(request, reply), token, error: null }));
    },
  );

  app.post(
    '/reset-password',
    {
      validatorCompiler: readsRequestAsSent,
      schema: {
        ...tag,
        summary: 'Set a new password with a reset link',
        description:
          "Uses the link once: sets the password (8 to 256 characters, typed twice) and ends the user's sessions, grants and access tokens. A form that fails a check comes back with the error and the link still live.",
        consumes: FORM,
        body: ResetForm,
        response: {
          200: page('The password is set'),
          400: page('The passwords are too short, too long or differ (the form again), or the link does not work (the error page)'),
          403: page('The form expired or did not come from this site (CSRF): the form again'),
          413: page('The form is over 64 KB'),
          500: page('Unexpected error'),
        },
      },
    },
    async (request, reply) => {
      const form = new URLSearchParams(isForm(request) && typeof request.body === 'string' ? request.body : '');
      const token = form.get('token') ?? '';
      const again = (status: number, error: string) => sendPage(reply, status, renderResetPage({ action, csrf: csrfTokenOf(request, reply), token, error }));
      if (!(await passwordResets.isLive(token))) return refused(reply);
      if (!csrf.verify(request.cookies[csrfCookie], form.get('csrf'))) {
        return again(403, 'This form has expired or was not sent from this site. Please try again.');
      }
      const password = form.get('password') ?? '';
      const problem = passwordProblem(password, form.get('confirmation') ?? '');
      if (problem !== null) return again(400, problem);
      if ((await passwordResets.complete(token, password)) === 'invalid') return refused(reply);
      return sendPage(reply, 200, renderResetDonePage({ loginAction }));
    },
  );
}
