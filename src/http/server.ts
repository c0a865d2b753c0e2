import { randomUUID } from 'node:crypto';
import http from 'node:http';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Config } from '../config.js';
import { PARLEY_VERSION } from '../shared/build-info.js';
import { AppError } from '../shared/errors.js';
import { installCors } from './cors.js';
import { installErrorHandling, sendError } from './error-handler.js';
import { reportIgnoredFields } from './ignored-fields.js';
import { installBodyParsers, parseQueryString } from './parsing.js';
import { logDestination, RequestLog, serializeRequest } from './request-log.js';
import { ErrorEnvelope } from './responses.js';
import type { TypedApp } from './typed-app.js';
import { answerExpectContinue, installUnreadBodyDraining } from './unread-bodies.js';
import { buildValidatorFactory } from './validation.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  websocket: boolean;
  /** The route's schemas, as JSON Schema. */
  schema: { body?: unknown; querystring?: unknown; params?: unknown; response?: unknown };
  /** What the route declares about itself (who may call it, what the audit calls it). */
  config?: unknown;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Generated request ids: UUID-shaped, a random prefix per process and a counter. Unique within the
 * process and, through the prefix, across instances; they only correlate log lines, so they need not
 * be unpredictable (randomUUID per request cost half a kilobyte of garbage each).
 */
const REQUEST_ID_PREFIX = randomUUID().slice(0, 24);
let requestCounter = 0;

/** Accepts a caller's X-Request-Id when it is tame; otherwise makes one. */
function requestIdOf(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
  requestCounter = (requestCounter + 1) % 2 ** 48;
  return REQUEST_ID_PREFIX + requestCounter.toString(16).padStart(12, '0');
}

/** JSON and form bodies. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** The largest body any route reads: an upload at the limit, with its fields and multipart framing. */
const largestBodyAccepted = (config: Config): number => Math.max(BODY_LIMIT_BYTES, config.uploadLimitBytes + 512 * 1024);

/** The Fastify instance every surface mounts on: logging, limits, parsing, errors, CORS and the API reference. */
export async function createServer(config: Config, logStream?: { write(line: string): void }): Promise<{ app: TypedApp; routes: RegisteredRoute[] }> {
  const destination = logDestination(logStream);
  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(destination ? { stream: destination } : {}),
      // The query string can carry a token (the stream's ?token=, an avatar's access_token): paths only.
      serializers: { req: serializeRequest },
    },
    // The request lines: method, route pattern, status and error code; probes at debug (request-log.ts).
    logController: new RequestLog(),
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT_BYTES,
    // Our own node:http server: a request not received whole within requestTimeoutMs is answered 408
    // and its connection closed. Node looks for such requests every connectionsCheckingInterval, which
    // only the constructor takes, so it follows the timeout. Keep-alive as Fastify's default.
    serverFactory: (handler) => {
      const server = http.createServer(
        { requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))) },
        handler,
      );
      server.keepAliveTimeout = 72_000;
      answerExpectContinue(server, handler, largestBodyAccepted(config));
      return server;
    },
    routerOptions: { querystringParser: parseQueryString },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: true, removeAdditional: false } },
    // JSON bodies are validated without that coercion (http/validation.ts).
    schemaController: { compilersFactory: { buildValidator: buildValidatorFactory() } },
    forceCloseConnections: 'idle',
    // The router's own refusals (a path that is not valid UTF-8, a path parameter over 100
    // characters) happen before any handler: answer them in the envelope too.
    frameworkErrors: (error, _request, reply) => {
      void sendError(reply, new AppError('badRequest', error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The URL is not valid.'));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every route as registered, so tests (authorization matrix, fuzzing, schemas) cover routes nobody listed.
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    declareBodyLimit(route.schema);
    reportIgnoredFields(route);
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({
        method: String(method),
        url: route.url ?? route.path,
        websocket: Boolean((route as { websocket?: boolean }).websocket),
        schema: route.schema ?? {},
        config: route.config,
      });
    }
  });
  // Callback-style (not async) hooks: they run on every request, and an async hook costs a promise
  // and a microtask hop each.
  app.decorateRequest('routePattern', null);
  app.addHook('onRequest', (request, reply, done) => {
    request.principal = null;
    // Read once: routeOptions builds a new object on every read, and metrics and the log both need it.
    request.routePattern = request.routeOptions.url ?? null;
    reply.header('x-request-id', request.id);
    done();
  });
  installErrorHandling(app);
  installUnreadBodyDraining(app);
  installBodyParsers(app);
  installCors(app);
  await installApiReference(app);
  // Adds only a multipart/form-data parser: JSON and form bodies are untouched. Routes read parts
  // themselves (http/multipart.ts); a file over the limit is 413.
  await app.register(multipart, { limits: { fileSize: config.uploadLimitBytes }, throwFileSizeLimit: true });
  return { app, routes };
}

const API_DESCRIPTION = `Parley is a self-hosted chat, sign-in, moderation and activity-tray server. One origin serves several surfaces, each under its own prefix and credential:

| surface | prefix | credential |
|---|---|---|
| Administration API | \`/api/v2\` | admin token, or the user token of a console sign-in (network admins; moderators for what their roles permit) |
| Bot API | \`/bot/v1\` | bot token (\`client_credentials\` grant at \`/oauth/token\`) |
| Sign-in (OpenID Connect) | \`/oauth/*\`, \`/userinfo\`, \`/.well-known/*\`, \`/login\`, \`/logout\`, \`/file/view/{avatarId}\` | client credentials, the browser's session, or an access token |
| Client API and real-time stream | \`/client/v1\` | user access token |
| Notification tray | \`/notifications/*\` | user access token; answers 403 unless the server enables the tray |
| Operations | \`/healthz\`, \`/readyz\`, \`/metrics\` | none (keep /metrics behind the network's fence) |

Send tokens as \`Authorization: Bearer <token>\`. Request bodies are JSON or forms with nested keys (\`userIds[]=a\`, \`options[limit]=5\`); the sign-in endpoints take plain RFC forms. Every error is one envelope, \`{"status":"error","code":400400,"message":"...","data":{"detail":[...]}}\`, where \`data.detail\` names the fields of a validation error; the OAuth endpoints add RFC 6749 \`error\` and \`error_description\`. Rate-limited calls answer 429 with \`Retry-After\`.

Body fields the endpoint does not know are ignored, as the original service did, and named in the \`Parley-Ignored-Fields\` response header (on success and error alike): a comma-separated list of field paths such as \`emial, options.limt, userIds[2].x\`, at most 20 (\`...\` ends a longer list; characters outside visible ASCII, \`,\` and \`%\` are percent-encoded). A method a path does not serve answers 405 with \`Allow\` listing those it does, in the envelope with code 400400; an unknown path answers 404 with 400400.

This document is generated from the routes' own schemas, which also serialize the answers. It is served at /openapi.json, and read at /docs.`;

/** The document's tags, one per group of routes, in the order a reader meets the surfaces. */
const API_TAGS = [
  { name: 'channels', description: 'Administration API: channels, their members, mutes, bans and closing' },
  { name: 'messages', description: 'Administration API: query, create and delete messages, images and files' },
  { name: 'users', description: 'Administration API: users, their profiles, avatars and minted access tokens' },
  { name: 'roles', description: 'Administration API: roles and their permissions' },
  { name: 'blacklist', description: 'Administration API: words a message may not contain' },
  { name: 'whitelist', description: 'Administration API: the only links a message may contain' },
  { name: 'reactions', description: 'Administration API: reactions on messages' },
  { name: 'oauth clients', description: 'Administration API: the OAuth clients that sign people in' },
  { name: 'bots', description: 'Administration API: bots, their credentials and webhooks' },
  { name: 'admin tokens', description: 'Administration API: the admin tokens, listed, created and revoked' },
  { name: 'audit', description: 'Administration API: the audit trail of administrative and moderation actions' },
  {
    name: 'admin moderation queue',
    description: 'Administration API: flagged messages and people with the reasons given, decisions on them, and their record',
  },
  { name: 'console', description: 'Administration API: who is calling, for the admin console' },
  { name: 'retention', description: 'Administration API: how long messages are kept, globally and per channel' },
  { name: 'bot', description: 'Bot API: a bot sends text, pictures and files to a person or a group' },
  { name: 'sign-in', description: 'OpenID Connect 1.0: discovery, keys, the authorization-code flow, tokens, userinfo, the sign-in pages and avatars' },
  { name: 'client', description: "Client API: the caller's profile, channels with unread counts, and read marker" },
  { name: 'client messages', description: 'Client API: read and send messages, images and files' },
  { name: 'client reactions and flags', description: 'Client API: reactions on messages, and flags on messages' },
  {
    name: 'client moderation',
    description: "Client API: what a person's role permits (rename, members, bans, mutes, closing, global bans), and flags on people",
  },
  { name: 'client: communities and posts', description: 'Client API: communities, posts, comments and post reactions, which feed the notification tray' },
  { name: 'real time', description: 'The WebSocket stream of events, with replay after a reconnect' },
  { name: 'notification tray', description: "The caller's grouped notifications of posts, comments and likes (private beta)" },
  { name: 'operations', description: 'Liveness, readiness, Prometheus metrics and the test clock' },
];

/**
 * OpenAPI 3.1 at /openapi.json, built from the routes' schemas, and its reader at /docs. Both are
 * hidden from the document they serve: it describes the API, not its own reader.
 */
async function installApiReference(app: TypedApp): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Parley', version: PARLEY_VERSION, description: API_DESCRIPTION },
      tags: API_TAGS,
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An access token: admin, bot or user, as each surface says' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

/**
 * Every route with a body can meet the body limit before its handler runs: its answers say so, in the
 * envelope, without each route listing it.
 */
function declareBodyLimit(schema: { body?: unknown; response?: unknown } | undefined): void {
  if (!schema?.body || typeof schema.response !== 'object' || schema.response === null) return;
  const response = schema.response as Record<string, unknown>;
  response['413'] ??= { ...ErrorEnvelope, description: 'The body or an upload is too large' };
}
