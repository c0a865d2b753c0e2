import { randomUUID } from 'node:crypto';
import http from 'node:http';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyRequest } from 'fastify';
import { AdjustableClock } from './clock.js';
import type { Config } from './config.js';
import { requireToken } from './http/auth.js';
import { installErrorHandling, sendError } from './http/error-handler.js';
import { AppError } from './http/errors.js';
import { createPageTokens } from './http/paging.js';
import { installCors } from './http/cors.js';
import { buildValidatorFactory } from './http/validation.js';
import { installBodyParsers, parseQueryString } from './http/parsing.js';
import type { TypedApp } from './http/typed-app.js';
import { registerChannelRoutes } from './surfaces/admin/channels.routes.js';
import { type ChannelCloseHook, createChannelsService } from './modules/channels/channels.service.js';
import { registerMediaRoutes } from './surfaces/admin/media.routes.js';
import { createMediaService } from './modules/messages/media.service.js';
import { registerMessageRoutes } from './surfaces/admin/messages.routes.js';
import { createMessagesService, type TextGuard } from './modules/messages/messages.service.js';
import { registerHealthRoutes, registerTestClockRoute } from './surfaces/ops/health.routes.js';
import { installMetrics } from './surfaces/ops/metrics.routes.js';
import { latestEventId } from './events/outbox.js';
import websocket from '@fastify/websocket';
import { createEndUserAuthenticator } from './http/auth.js';
import { createRealtimeGateway, type GatewayOptions } from './modules/realtime/realtime.gateway.js';
import { registerRealtimeRoutes } from './surfaces/stream/stream.routes.js';
import { createRealtimeStore } from './modules/realtime/realtime.store.js';
import { createUsersStore } from './modules/users/users.store.js';
import { registerClientBasicsRoutes } from './surfaces/client/basics.routes.js';
import { registerClientModerationRoutes } from './surfaces/client/moderation.routes.js';
import { registerClientMessageRoutes } from './surfaces/client/messages.routes.js';
import { createSendRules } from './modules/messages/send-rules.js';
import { registerBotRoutes } from './surfaces/bot/bot.routes.js';
import { createBotService } from './modules/bot/bot.service.js';
import { createRateLimiter } from './http/rate-limit.js';
import { createPermissionsService } from './modules/roles/permissions.service.js';
import { bearerTokenOf } from './http/auth.js';
import { createModerationService } from './modules/moderation/moderation.service.js';
import { registerRuleRoutes } from './surfaces/admin/rules.routes.js';
import { createRulesService } from './modules/moderation/rules.service.js';
import { registerRoleRoutes } from './surfaces/admin/roles.routes.js';
import { createRolesService } from './modules/roles/roles.service.js';
import { createTokensService } from './modules/tokens/tokens.service.js';
import { registerUserRoutes } from './surfaces/admin/users.routes.js';
import { createIdentity } from './modules/identity/identity.js';
import { registerSocialRoutes } from './surfaces/client/social.routes.js';
import { createSocialService } from './modules/social/social.service.js';
import { registerClientMessageActionRoutes } from './surfaces/client/message-actions.routes.js';
import { createMessageFlagsService } from './modules/reactions/message-flags.service.js';
import { registerReactionRoutes } from './surfaces/admin/reactions.routes.js';
import { createReactionsService } from './modules/reactions/reactions.service.js';
import { createTray } from './modules/tray/tray.js';
import { type BaseLookup, createWebhookTargets } from './modules/webhooks/webhook-targets.js';
import { registerWebhookRoutes } from './surfaces/admin/webhooks.routes.js';
import { createWebhooksService, type WebhookOptions, type WebhooksService } from './modules/webhooks/webhooks.service.js';
import { createUsersService } from './modules/users/users.service.js';
import { createDiskBlobStore } from './storage/blobs.js';
import { openStorage, type Storage } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { sweepOrphanBlobs } from './storage/orphan-blobs.js';
import { loadOrCreateNetworkId, loadOrCreateSecret } from './storage/settings.js';
import { type EventSystem, startEventSystem } from './events/index.js';
import { redisTargetOf } from './storage/redis-target.js';

export interface BuiltApp {
  app: TypedApp;
  storage: Storage;
  clock: AdjustableClock;
  config: Config;
  events: EventSystem;
  routes: readonly RegisteredRoute[];
  /** Bot webhook deliveries (scheduled by the 'webhooks' outbox consumer, sent by this instance's loop). */
  webhooks: WebhooksService;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  websocket: boolean;
  /** The route's request schemas (body, querystring, params), as JSON Schema. */
  schema: { body?: unknown; querystring?: unknown; params?: unknown };
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

/**
 * The composition root: storage, services and routes wired into one Fastify instance. Nothing here
 * is a module-level singleton, so tests build as many apps as they like, each on its own database.
 */
export async function buildApp(
  config: Config,
  options: {
    storage?: Storage;
    clock?: AdjustableClock;
    gateway?: Partial<GatewayOptions>;
    relayPollMs?: number;
    webhooks?: Partial<WebhookOptions>;
    /** The resolver bot webhooks use (tests play DNS answers with it); default the OS resolver. */
    webhookLookup?: BaseLookup;
    /** Where JSON log lines go instead of stdout (tests read the log this way). */
    logStream?: { write(line: string): void };
  } = {},
): Promise<BuiltApp> {
  const storage = options.storage ?? openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const clock = options.clock ?? new AdjustableClock();
  const { db, dialect } = storage;
  await migrateToLatest(db);

  const pageTokens = createPageTokens(await loadOrCreateSecret(db, 'page_token_secret'));
  const tokens = createTokensService({ db, clock });
  // Redis (REDIS_URL) under a namespace of this database's own: deployments sharing a Redis stay apart.
  const redis = await redisTargetOf(db, config.redisUrl);
  const events = await startEventSystem({ redis, db, dialect, clock, ...(options.relayPollMs ? { pollIntervalMs: options.relayPollMs } : {}) });
  if (config.adminToken) await tokens.installEnvironmentAdminToken(config.adminToken);

  const app = Fastify({
    logger: {
      level: config.logLevel,
      ...(options.logStream ? { stream: options.logStream } : {}),
      serializers: {
        // The query string can carry access_token (avatar view); log the path only.
        req: (request: FastifyRequest) => ({ method: request.method, url: request.url.split('?')[0], id: request.id }),
      },
    },
    genReqId: requestIdOf,
    bodyLimit: 1024 * 1024,
    // Our own node:http server: a request not received whole within requestTimeoutMs is answered 408
    // and its connection closed (config.ts). Node looks for such requests every
    // connectionsCheckingInterval, which only the constructor takes (Fastify passes it no options), so
    // it follows the timeout. Fastify sets nothing on a server it did not make: keep-alive as its default.
    serverFactory: (handler) => {
      const server = http.createServer(
        { requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(config.requestTimeoutMs / 4))) },
        handler,
      );
      server.keepAliveTimeout = 72_000;
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

  // Every route as registered, so tests (authorization matrix, fuzzing) cover routes nobody listed.
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({ method: String(method), url: route.url ?? route.path, websocket: Boolean((route as { websocket?: boolean }).websocket), schema: route.schema ?? {} });
    }
  });

  // Callback-style (not async) hooks, here and below: they run on every request, and an async hook
  // costs Fastify a promise and a microtask hop each (seen in the message create profile).
  app.addHook('onRequest', (request, reply, done) => {
    request.principal = null;
    reply.header('x-request-id', request.id);
    done();
  });
  // A successful write has committed by the time its response is sent: wake the outbox relay here
  // and on the other instances, so real-time delivery does not wait for the periodic poll.
  // Routes that never write events (the token endpoint), or whose writer tells the relay itself (message
  // creates), opt out with `config: { pokesRelay: false }` (http/typed-app.ts).
  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'GET' && reply.statusCode < 300 && request.routeOptions.config.pokesRelay !== false) events.relay.poke();
    done();
  });
  installErrorHandling(app);
  installBodyParsers(app);
  installCors(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Parley', version: '0.1.0', description: 'Chat, sign-in, moderation and activity tray.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  // Adds only a multipart/form-data parser: JSON and form bodies are untouched. Routes read parts
  // themselves (messages/multipart.ts); a file over the limit is 413.
  await app.register(multipart, { limits: { fileSize: config.uploadLimitBytes }, throwFileSizeLimit: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const closeHooks: ChannelCloseHook[] = [];
  const channels = createChannelsService({ db, dialect, clock, pageTokens, closeHooks });
  const blobs = createDiskBlobStore(config.dataDir);
  // The moderation seam: guards see message text, custom data strings and captions before any write.
  const textGuards: TextGuard[] = [];
  // Blacklist and whitelist rules, compiled into one matcher kept current across instances (moderation.service.ts).
  const moderation = createModerationService({ db, bus: events.bus, onBackgroundError: (error) => app.log.error({ err: error }, 'moderation rules rebuild failed') });
  await moderation.start();
  textGuards.push(moderation.guard);
  /** The message text guards on one text outside a message (a post, a reaction name), `field` naming it in the body. */
  const guardOneText = async (actor: { userId: string }, field: string, text: string): Promise<void> => {
    for (const guard of textGuards) await guard(actor, { channelId: '', texts: [{ field, text }] });
  };
  const messages = createMessagesService({
    db,
    dialect,
    sqlite: storage.sqlite,
    relay: events.relay,
    clock,
    pageTokens,
    blobs,
    textGuards,
    onBackgroundError: (error) => app.log.error({ err: error }, 'message media sweep failed'),
  });
  const media = createMediaService({ messages, blobs, clock });
  // Closing a channel soft-deletes its messages in the close transaction (messages.service.ts).
  closeHooks.push((trx, channelId, now) => messages.deleteAllOnClose(trx, channelId, now));
  // Blobs of messages deleted just before a crash are removed at start.
  await messages.sweepDeletedMedia();
  const banListeners: Array<(userId: string, banned: boolean) => void> = [];
  const users = createUsersService({ db, clock, pageTokens, onGlobalBanChanged: banListeners });
  const roles = createRolesService({ db, clock });
  // Sign-in (OpenID Connect), OAuth clients, bots and avatars: root routes here, operator routes in /api/v2.
  // Where bot webhooks may connect: public addresses, plus what PARLEY_WEBHOOK_ALLOWED_HOSTS lists.
  const webhookTargets = createWebhookTargets(config.webhookAllowedHosts, options.webhookLookup);
  // One network id for userinfo and the tray: PARLEY_NETWORK_ID, else an id made once per database.
  const networkId = config.networkId ?? (await loadOrCreateNetworkId(db, clock.now()));
  const identity = await createIdentity({
    db,
    clock,
    config,
    networkId,
    webhookTargets,
    blobs,
    tokens,
    onBackgroundError: (error) => app.log.error({ err: error }, 'sign-in housekeeping failed'),
  });
  await app.register(identity.signInRoutes);
  // A banned bot stops getting tokens at once on this instance (within the cache's 2 s elsewhere).
  banListeners.push(() => identity.clients.forgetCached());
  // Bytes of uploads whose row never committed (a crash between the two) are removed before serving.
  const orphanBlobs = await sweepOrphanBlobs({
    blobs,
    references: [messages.referencedBlobKeys, identity.avatarBlobReferences],
    now: Date.now(),
    graceMs: config.blobSweepGraceMs,
  });
  if (orphanBlobs > 0) app.log.warn({ orphanBlobs }, 'removed blobs that no row points at');

  registerHealthRoutes(app, { db });

  const usersStore = createUsersStore(db);
  const authenticateEndUser = createEndUserAuthenticator(tokens, async (userId) => (await usersStore.findById(userId))?.is_global_ban === 1);
  // Communities, posts, comments, post reactions; post and comment texts pass the message text guards.
  const social = createSocialService({
    db,
    dialect,
    clock,
    textGuards: [(text, actor, field) => guardOneText(actor, field, text)],
  });
  // The notification tray (private beta, PARLEY_TRAY_ENABLED): consumer, /notifications routes, purge job.
  const tray = await createTray({
    db,
    sqlite: storage.sqlite,
    clock,
    events,
    intervalsOf: social.intervalsOf,
    authenticate: authenticateEndUser,
    options: {
      enabled: config.trayEnabled,
      networkId,
      publicUrl: config.publicUrl,
      redis,
      consumerDelayMs: config.trayConsumerDelayMs,
    },
  });
  await app.register(tray.routes, { prefix: '/notifications' });
  // Bot webhooks: a durable consumer schedules one delivery per (bot member, user message) in its own
  // transaction; the sender posts them signed with the bot's client secret and retries for a day.
  const webhooks = createWebhooksService({
    db,
    dialect,
    clock,
    resolve: identity.resolveBotWebhook,
    targets: webhookTargets,
    // A name that resolves to an internal address passes bot creation (only literals are checked there):
    // the operator learns of it here.
    onRefused: (botUserId, reason) => app.log.warn({ botUserId, reason }, 'bot webhook refused: internal address'),
    ...(options.webhooks ? { options: options.webhooks } : {}),
  });
  await events.consumers.register('webhooks', (trx, batch) => webhooks.schedule(trx, batch), ['message.created']);
  webhooks.start();
  const gateway = createRealtimeGateway({
    store: createRealtimeStore(db, dialect),
    clock,
    options: options.gateway ?? {},
    onError: (error) => app.log.warn({ err: error }, 'stream re-check failed'),
  });
  // A ban ends the user's streams on this instance at once; other instances see it at their next heartbeat.
  banListeners.push((userId, banned) => {
    if (banned) gateway.disconnectBanned(userId);
  });
  events.relay.onEvents((batch) => gateway.deliver(batch));
  // In a scope of its own: the websocket plugin adds request and response hooks, which then run for
  // the stream route only, not for every API request.
  await app.register(async (stream) => {
    await stream.register(websocket, { options: { maxPayload: 64 * 1024 } });
    registerRealtimeRoutes(stream, { gateway, authenticate: authenticateEndUser, startingPoint: () => events.relay.position });
  });
  installMetrics(app, {
    outboxLag: async () => Math.max(0, (await latestEventId(db)) - events.relay.position),
    connectedSockets: () => gateway.connectionCount,
    databasePool: () => storage.poolStats(),
  });

  // Who may read and post in a channel, for the client and bot APIs (messages/send-rules.ts).
  const sendRules = createSendRules({ db, dialect, clock });
  // Message reactions (admin and client API) and message flags (client API): src/modules/reactions.
  const reactions = createReactionsService({
    db,
    dialect,
    clock,
    pageTokens,
    // Reaction names are shown to everyone in the channel: the message text guards judge them too.
    nameGuards: [(actor, reactionName) => guardOneText(actor, 'reactionName', reactionName)],
  });
  const messageFlags = createMessageFlagsService({ db, clock, reactions });
  // The client API: end-user apps with a user access token (API-CONVENTIONS.md section 6).
  await app.register(
    async (client) => {
      client.addHook('onRequest', async (request) => {
        request.principal = await authenticateEndUser(bearerTokenOf(request));
      });
      registerClientBasicsRoutes(client, { db, clock, sendRules });
      registerClientModerationRoutes(client, { channels, users, permissions: createPermissionsService({ db }), clock });
      registerSocialRoutes(client, { social });
      registerClientMessageActionRoutes(client, { reactions, flags: messageFlags });
      registerClientMessageRoutes(client, { messages, media, sendRules, permissions: createPermissionsService({ db }) });
    },
    { prefix: '/client/v1' },
  );

  // The bot API (SPEC.md section A): bot tokens only, a per-bot rate limit counted in Redis when set.
  const botRateLimiter = createRateLimiter({ redis });
  await app.register(
    async (bot) => {
      registerBotRoutes(bot, {
        bots: createBotService({ db, dialect, clock, channels, messages, media, sendRules }),
        authenticate: createEndUserAuthenticator(tokens, async (userId) => (await usersStore.findById(userId))?.is_global_ban === 1, ['bot']),
        rate: { limiter: botRateLimiter, limit: config.botRateLimit, windowMs: config.botRateWindowMs },
      });
    },
    { prefix: '/bot/v1' },
  );

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', requireToken(tokens, ['admin']));
      registerChannelRoutes(admin, { channels, clock });
      registerMessageRoutes(admin, { messages, clock });
      registerMediaRoutes(admin, { media });
      registerUserRoutes(admin, { users });
      registerRoleRoutes(admin, { roles });
      registerRuleRoutes(admin, { rules: createRulesService({ db, clock, moderation }) });
      registerReactionRoutes(admin, { reactions });
      identity.registerAdminRoutes(admin);
      registerWebhookRoutes(admin, { webhooks });
      if (config.testClock) registerTestClockRoute(admin, { clock });
    },
    { prefix: '/api/v2' },
  );

  app.addHook('preClose', async () => {
    gateway.close();
  });
  app.addHook('onClose', async () => {
    await tray.stop();
    await botRateLimiter.close();
    await webhooks.stop();
    await events.stop();
    await storage.close();
  });
  return { app, storage, clock, config, events, routes, webhooks };
}
