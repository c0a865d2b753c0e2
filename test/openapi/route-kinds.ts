import type { RegisteredRoute } from '../../src/app.js';

/**
 * What the OpenAPI tests expect of each kind of route, and the routes whose answers are not JSON,
 * each with what it documents instead and why. Shared by document.test.ts (the document) and
 * answers.test.ts (the real answers).
 */

/** "GET /client/v1/messages/{messageId}/files": an operation as the document names it. */
export const operationKey = (method: string, url: string): string => `${method.toUpperCase()} ${url.replace(/:(\w+)/g, '{$1}')}`;

/** Registered but not in the document on purpose (hidden). */
export const HIDDEN_ROUTES: Array<{ pattern: RegExp; reason: string }> = [
  { pattern: /^\/docs(\/|$)/, reason: 'the reader of the API reference (@fastify/swagger-ui) and its static files' },
  { pattern: /^\/openapi\.json$/, reason: 'the document itself' },
  { pattern: /^\/$|^\/console(\/|$)/, reason: 'the admin console (packages/console) and the redirects to it: a web app, not the API' },
  { pattern: /^\/favicon\.ico$/, reason: "the icon browsers show in a page's tab" },
];

export const isHidden = (route: RegisteredRoute): boolean => HIDDEN_ROUTES.some(({ pattern }) => pattern.test(route.url));

/** The routes both tests walk: every registered route but the hidden ones and the automatic HEADs. */
export function documentedRoutes(routes: readonly RegisteredRoute[]): RegisteredRoute[] {
  return routes.filter((route) => route.method !== 'HEAD' && !isHidden(route));
}

export interface NonJsonSuccess {
  /** The success status the route answers instead of a JSON 2xx. */
  status: number;
  /** The media type its success documents (a body), or null for a redirect (no body). */
  media: RegExp | null;
  /** A redirect documents where it goes. */
  locationHeader?: true;
  reason: string;
}

const IMAGE: NonJsonSuccess = {
  status: 200,
  media: /^image\//,
  reason: 'the image in its stored type (image/jpeg, image/png...): document image/* or each type',
};
const FILE: NonJsonSuccess = {
  status: 200,
  media: /^\*\/\*$/,
  reason: 'a download answers the type the file was uploaded with, whatever it is: documented as */*',
};
const PAGE: NonJsonSuccess = { status: 200, media: /^text\/html/, reason: 'an HTML page a person reads in a browser' };

/** Routes whose success is not a JSON body. Every other operation documents a JSON 2xx. */
export const NON_JSON_SUCCESS: Record<string, NonJsonSuccess> = {
  'GET /metrics': { status: 200, media: /^text\/plain/, reason: 'the Prometheus text exposition format a scraper reads' },
  'GET /login': PAGE,
  'GET /logout': PAGE,
  'GET /reset-password': PAGE,
  'POST /reset-password': PAGE,
  'POST /logout': PAGE,
  'POST /login': { status: 303, media: null, locationHeader: true, reason: 'a successful sign-in sends the browser on (303) to the client or back to /login' },
  'GET /oauth/authorize': {
    status: 302,
    media: null,
    locationHeader: true,
    reason: 'RFC 6749 section 4.1.2: the answer is a redirect to the client (or to the login page)',
  },
  'POST /oauth/authorize': { status: 303, media: null, locationHeader: true, reason: 'the form-post authorization request, answered with a 303 redirect' },
  'GET /file/view/{avatarId}': IMAGE,
  'GET /api/v2/messages/{messageId}/images': IMAGE,
  'GET /client/v1/messages/{messageId}/images': IMAGE,
  'GET /api/v2/messages/{messageId}/files': FILE,
  'GET /client/v1/messages/{messageId}/files': FILE,
  'GET /client/v1/stream': { status: 101, media: null, reason: 'a WebSocket: success switches protocols; a plain GET is a 400 in the envelope' },
};

/** Left out of the answers scenario: light-my-request cannot upgrade a connection (the realtime tests open real sockets). */
export const NOT_CALLED: Record<string, string> = {
  'GET /client/v1/stream': 'a WebSocket upgrade (101) cannot be made with app.inject; test/realtime*.test.ts cover the stream',
};

/** The API surfaces whose routes take a token (and so may answer 401 or 403). */
const TOKEN_PREFIXES = ['/api/v2/', '/client/v1/', '/bot/v1/', '/notifications/'];
const TOKEN_ROUTES = new Set(['GET /file/view/{avatarId}']);

export const takesToken = (route: RegisteredRoute): boolean =>
  TOKEN_PREFIXES.some((prefix) => route.url.startsWith(prefix)) || TOKEN_ROUTES.has(operationKey(route.method, route.url));

/** One required error answer: any one of `statuses`, with the envelope (JSON) or an HTML page. */
export interface RequiredError {
  statuses: number[];
  body: 'envelope' | 'html';
}

const envelope = (...statuses: number[]): RequiredError[] => statuses.map((status) => ({ statuses: [status], body: 'envelope' }));
const html = (...statuses: number[]): RequiredError[] => statuses.map((status) => ({ statuses: [status], body: 'html' }));

/**
 * Routes whose errors differ from the API's: documents that take no input and no token (only an
 * unexpected error), OAuth protocol endpoints (the envelope with RFC 6749 / 6750 fields), and the
 * browser pages (their errors are pages).
 */
const ERROR_OVERRIDES: Array<{ pattern: RegExp; errors: RequiredError[]; reason: string }> = [
  { pattern: /^GET \/(healthz|metrics|oauth\/jwks)$/, errors: envelope(500), reason: 'no input, no token' },
  { pattern: /^GET \/(.+\/)?\.well-known\//, errors: envelope(500), reason: 'discovery: no input, no token' },
  { pattern: /^GET \/readyz$/, errors: envelope(503, 500), reason: '503 when the database does not answer' },
  { pattern: /^POST \/oauth\/token$/, errors: envelope(400, 401, 500), reason: 'RFC 6749 section 5.2 errors in the envelope' },
  { pattern: /^GET \/userinfo$/, errors: [{ statuses: [401, 403], body: 'envelope' }, ...envelope(500)], reason: 'RFC 6750 errors in the envelope' },
  { pattern: /^POST \/userinfo$/, errors: [{ statuses: [401, 403], body: 'envelope' }, ...envelope(400, 500)], reason: 'RFC 6750 errors in the envelope' },
  {
    pattern: /^GET \/client\/v1\/stream$/,
    errors: [...envelope(400), { statuses: [401, 403], body: 'envelope' }, ...envelope(422, 500)],
    reason: 'names nothing: no 404',
  },
  { pattern: /^POST \/login$/, errors: html(400, 401, 403, 429, 500), reason: 'the login form again, with the error' },
  { pattern: /^POST \/logout$/, errors: html(403, 500), reason: 'an expired form is a page' },
  { pattern: /^POST \/reset-password$/, errors: html(400, 403, 500), reason: 'the form again with the error, or the page of a link that does not work' },
  { pattern: /^GET \/reset-password$/, errors: html(400, 500), reason: 'a person reads these errors' },
  { pattern: /^(GET|POST) \/(login|logout|oauth\/authorize)$/, errors: html(400, 500), reason: 'a person reads these errors' },
];

/** Routes that take input in the path, the query or a body (so may answer 404 and 422). */
const takesInput = (route: RegisteredRoute): boolean =>
  route.schema.params !== undefined || route.schema.querystring !== undefined || bodyMediaTypes(route) !== null;

/** The error answers a route must document. */
export function requiredErrors(route: RegisteredRoute): RequiredError[] {
  const key = operationKey(route.method, route.url);
  const override = ERROR_OVERRIDES.find(({ pattern }) => pattern.test(key));
  if (override) return override.errors;
  const errors = envelope(400);
  if (takesToken(route)) errors.push({ statuses: [401, 403], body: 'envelope' });
  if (takesInput(route)) errors.push(...envelope(404, 422));
  return [...errors, ...envelope(500)];
}

/** Sign-in routes that read a plain RFC form (the sign-in surface's own parser), never JSON. */
const FORM_ONLY = new Set(['POST /oauth/token', 'POST /oauth/authorize', 'POST /login', 'POST /logout', 'POST /userinfo', 'POST /reset-password']);

/**
 * The media types a route's request body must be documented under, or null for a route without a
 * body. The app-wide parsers (src/http/parsing.ts) take JSON and forms for every route with a body
 * schema; upload routes (`consumes` multipart) read multipart; the sign-in forms read forms only.
 */
export function bodyMediaTypes(route: RegisteredRoute): string[] | null {
  if (FORM_ONLY.has(operationKey(route.method, route.url))) return ['application/x-www-form-urlencoded'];
  const consumes = (route.schema as { consumes?: unknown }).consumes;
  if (Array.isArray(consumes) && consumes.includes('multipart/form-data')) return ['multipart/form-data'];
  if (route.schema.body !== undefined) return ['application/json', 'application/x-www-form-urlencoded'];
  return null;
}
