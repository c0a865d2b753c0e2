import { Type } from '@sinclair/typebox';
import { AsSent, FORM, OAuthErrorEnvelope } from './signin.schemas.js';

/**
 * The schemas of the browser side of sign-in (pages.routes.ts): the authorization endpoint, the
 * sign-in and sign-out pages. Their answers are HTML pages and redirects, documented here and never
 * serialized (a page is sent as text); the forms and the query are read as sent.
 */
const tag = { tags: ['sign-in'] };

const CLIENT_ID = '67d3f5a5e4b0a1c2d3e4f5a0';
const REDIRECT_URI = 'https://app.example.com/callback';

const AUTHORIZATION_PARAMETERS = Type.Object(
  {
    response_type: Type.Literal('code', { description: 'Always code (the authorization-code flow)' }),
    client_id: Type.String({ description: 'The client id issued at registration' }),
    redirect_uri: Type.String({ description: 'Exactly one of the redirect URIs registered for the client' }),
    scope: Type.String({ description: 'openid, or openid profile' }),
    state: Type.Optional(Type.String({ description: 'Opaque anti-forgery value, echoed on the redirect' })),
    nonce: Type.Optional(Type.String({ description: 'Copied into the ID token' })),
    prompt: Type.Optional(Type.String({ description: 'none, or any of login, consent, select_account (space-separated)' })),
    max_age: Type.Optional(Type.String({ description: 'Seconds since the last sign-in after which the person signs in again' })),
    login_hint: Type.Optional(Type.String({ description: 'Fills in the username on the sign-in page' })),
    id_token_hint: Type.Optional(Type.String({ description: 'An ID token this server issued: the person the client expects' })),
    code_challenge: Type.Optional(Type.String({ description: 'PKCE (RFC 7636): base64url SHA-256 of the code_verifier' })),
    code_challenge_method: Type.Optional(Type.Literal('S256')),
    response_mode: Type.Optional(Type.Literal('query')),
  },
  {
    description: 'An authorization request (OpenID Connect Core 3.1.2.1); unknown parameters are ignored',
    examples: [{ response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, scope: 'openid profile', state: 'af0ifjsldkj3nqh7s9d2k4z8m1x5c0' }],
  },
);

/** GET /oauth/authorize's query, read leniently (an unencoded redirect_uri, a raw space in scope). */
const AuthorizeQuery = AsSent<Record<string, string>>(AUTHORIZATION_PARAMETERS);

/** POST /oauth/authorize's form: the same parameters. */
const AuthorizeForm = AsSent<string>(AUTHORIZATION_PARAMETERS);

const LoginForm = AsSent<string>(
  Type.Object(
    {
      username: Type.String(),
      password: Type.String(),
      csrf: Type.String({ description: "The sign-in page's anti-forgery token" }),
      authorize: Type.Optional(Type.String({ description: 'The authorization request to continue, as the sign-in page carries it' })),
    },
    {
      examples: [
        {
          username: 'alice',
          password: 'correct horse battery staple',
          csrf: 'k3Jd9sQ0vX1mZp7aTq4LwB',
          authorize: `response_type=code&client_id=${CLIENT_ID}&scope=openid`,
        },
      ],
    },
  ),
);

/** A logout request (OpenID Connect RP-Initiated Logout 1.0 section 2); every parameter is optional. */
const LOGOUT_PARAMETERS = {
  id_token_hint: Type.Optional(
    Type.String({
      description: 'An ID token this server issued (expired ones too): names the client and the person; signed out without asking when it is theirs',
    }),
  ),
  client_id: Type.Optional(Type.String({ description: "The client, when there is no id_token_hint; must be the hint's audience when both are sent" })),
  post_logout_redirect_uri: Type.Optional(
    Type.String({ description: "Where to send the browser afterwards: exactly one of the client's registered post-logout redirect URIs" }),
  ),
  state: Type.Optional(Type.String({ description: 'Opaque value, appended to post_logout_redirect_uri' })),
  logout_hint: Type.Optional(Type.String({ description: 'Accepted and not used' })),
  ui_locales: Type.Optional(Type.String({ description: 'Accepted and not used: the pages are in English' })),
};

const LOGOUT_EXAMPLE = {
  id_token_hint: 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2NoYXQuZXhhbXBsZS5jb20iLCJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
  post_logout_redirect_uri: 'https://app.example.com/signed-out',
  state: 'af0ifjsldkj3nqh7s9d2k4z8m1x5c0',
};

const LogoutQuery = AsSent<Record<string, string>>(
  Type.Object(LOGOUT_PARAMETERS, { description: 'A logout request from a client, or nothing for the sign-out page', examples: [LOGOUT_EXAMPLE] }),
);

const LogoutForm = AsSent<string>(
  Type.Object(
    {
      csrf: Type.Optional(
        Type.String({ description: "The sign-out page's anti-forgery token: present when a person confirms; absent in a client's logout request" }),
      ),
      ...LOGOUT_PARAMETERS,
    },
    { examples: [{ csrf: 'k3Jd9sQ0vX1mZp7aTq4LwB' }, LOGOUT_EXAMPLE] },
  ),
);

const HtmlPage = Type.String({ description: 'The HTML page' });

/** An answer that is an HTML page a person reads. */
const page = (description: string) => ({ description, content: { 'text/html': { schema: HtmlPage } } });

/** An error that is a page, or the envelope (with `error`) for a caller that accepts only JSON. */
const pageOrEnvelope = (description: string) => ({
  description,
  content: { 'text/html': { schema: HtmlPage }, 'application/json': { schema: OAuthErrorEnvelope } },
});

/** A redirect: no body, the browser goes on to Location. */
const redirect = (description: string, location: string) => ({
  type: 'null',
  description,
  headers: { location: Type.String({ description: location }) },
});

const TO_CLIENT_OR_LOGIN = "The client's redirect_uri with code, state and iss (or error and state), or the sign-in page when no one is signed in";
const BAD_REQUEST_PAGE =
  'The request is malformed or fails a check that cannot go back to the client (unknown client_id, unregistered redirect_uri): a page, or the envelope with error for Accept: application/json';
const MALFORMED_PAGE = page('The request is malformed');
const UNEXPECTED_PAGE = page('Unexpected error');
const FORM_TOO_LARGE_PAGE = page('The form is over 64 KB');
const AUTHORIZE_DESCRIPTION =
  'Starts the authorization-code flow (OpenID Connect Core 3.1.2) in the browser: with a signed-in session, redirects to the client with a code; otherwise to the sign-in page, which comes back here. Errors the client may see go to its redirect_uri; the others are a page.';

export const AUTHORIZE_SCHEMA = {
  ...tag,
  summary: 'Authorization endpoint (OpenID Connect code flow)',
  description: AUTHORIZE_DESCRIPTION,
  querystring: AuthorizeQuery,
  response: { 302: redirect('To the client or to the sign-in page', TO_CLIENT_OR_LOGIN), 400: pageOrEnvelope(BAD_REQUEST_PAGE), 500: UNEXPECTED_PAGE },
};

export const AUTHORIZE_FORM_SCHEMA = {
  ...tag,
  summary: 'Authorization endpoint, form-post form of the request',
  description: `${AUTHORIZE_DESCRIPTION} The parameters come as a form; the answer is a 303.`,
  consumes: FORM,
  body: AuthorizeForm,
  response: {
    303: redirect('To the client or to the sign-in page', TO_CLIENT_OR_LOGIN),
    400: pageOrEnvelope(BAD_REQUEST_PAGE),
    413: FORM_TOO_LARGE_PAGE,
    500: UNEXPECTED_PAGE,
  },
};

export const LOGIN_PAGE_SCHEMA = {
  ...tag,
  summary: 'The sign-in page',
  description:
    'The username and password form; with an authorization request in the query (as /oauth/authorize sends it) it names the client and continues the request after sign-in. A signed-in person without one sees who they are.',
  response: { 200: page('The sign-in page, or the signed-in page'), 400: MALFORMED_PAGE, 500: UNEXPECTED_PAGE },
};

export const LOGIN_FORM_SCHEMA = {
  ...tag,
  summary: 'Sign in with a username and password',
  description:
    'Checks the credentials and starts a login session (a cookie), then continues the authorization request the form carries, or goes back to /login. A failure shows the form again with the error; 10 failures in 10 minutes per account or address are a 429.',
  consumes: FORM,
  body: LoginForm,
  response: {
    303: redirect('Signed in', "To the client's redirect_uri (the authorization request continues) or to /login"),
    400: pageOrEnvelope('The username or password is empty (the form again), or the authorization request fails a check'),
    401: page('The username or password is incorrect, or the user is banned: the form again'),
    403: page('The form expired or did not come from this site (CSRF): the form again'),
    413: FORM_TOO_LARGE_PAGE,
    429: page('Too many failed attempts: the form again; Retry-After says when to try'),
    500: UNEXPECTED_PAGE,
  },
};

const LOGOUT_REFUSED_PAGE = page(
  "The logout request fails a check (an id_token_hint not signed by this server or of another issuer, an unknown client_id or one that is not the hint's audience, an unregistered post_logout_redirect_uri, a repeated parameter): nothing is done",
);
const TO_POST_LOGOUT_URI = "The client's registered post_logout_redirect_uri, with state when the request had one";

export const LOGOUT_PAGE_SCHEMA = {
  ...tag,
  summary: 'Sign out (page), and the end_session_endpoint of RP-Initiated Logout',
  description:
    'Without parameters: asks the signed-in person to confirm signing out (a form posting to /logout). With a logout request (OpenID Connect RP-Initiated Logout 1.0): signs out at once when id_token_hint is a valid ID token of the signed-in person, else asks first; then redirects to post_logout_redirect_uri (state appended) when the client registered it, or shows the signed-out page. Signing out deletes the login session and clears its cookie; tokens already issued stay valid until they expire.',
  querystring: LogoutQuery,
  response: {
    200: page('The confirmation page, or the signed-out page'),
    302: redirect('Signed out, back to the client', TO_POST_LOGOUT_URI),
    400: LOGOUT_REFUSED_PAGE,
    500: UNEXPECTED_PAGE,
  },
};

export const LOGOUT_FORM_SCHEMA = {
  ...tag,
  summary: 'Sign out: ends the login session (the sign-out form, or a logout request posted by a client)',
  description:
    "With csrf: the person's confirmation; ends the login session and clears its cookie, then goes to the request's post_logout_redirect_uri or shows the signed-out page. Without csrf: a client's logout request (RP-Initiated Logout 1.0), handled as on GET; posted from another site, whose browser withholds the session cookie, it continues as a GET to /logout. Tokens already issued stay valid until they expire.",
  consumes: FORM,
  body: LogoutForm,
  response: {
    200: page('Signed out, or the confirmation page'),
    303: redirect('Signed out, back to the client; or on to GET /logout', `${TO_POST_LOGOUT_URI}; or /logout with the request's parameters`),
    400: LOGOUT_REFUSED_PAGE,
    403: page('The form expired or did not come from this site (CSRF)'),
    413: FORM_TOO_LARGE_PAGE,
    500: UNEXPECTED_PAGE,
  },
};
