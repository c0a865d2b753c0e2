import { createStatsService } from './modules/stats/stats.service.js';
import { rollUpMessages } from './modules/stats/daily-stats.js';
import { createTrayInspector } from './modules/tray/tray.inspect.js';
import type { FastifyBaseLogger } from 'fastify';
import { AdjustableClock } from './clock.js';
import type { Config } from './config.js';
import { createOutboxPruner, type PruneOptions } from './events/consumers.js';
import { type EventSystem, startEventSystem } from './events/index.js';
import { createNotices, type Notices } from './events/notices.js';
import { latestEventId } from './events/outbox.js';
import { createEndUserAuthenticator } from './http/auth.js';
import { createRateLimiter } from './shared/rate-limit.js';
import { createAuditService } from './modules/audit/audit.service.js';
import { createBotService } from './modules/bot/bot.service.js';
import { createChannelsService } from './modules/channels/channels.service.js';
import { createInboxService } from './modules/inbox/inbox.service.js';
import { createBanLifts } from './modules/bans/ban-lifts.service.js';
import { createBanCommands } from './modules/bans/bans.commands.js';
import { createIdentity } from './modules/identity/identity.js';
import { createLiveSessions } from './modules/identity/live-sessions.js';
import { createMediaService } from './modules/messages/media.service.js';
import { createMessagesService } from './modules/messages/messages.service.js';
import { createMessageRetention, type RetentionOptions } from './modules/messages/retention.js';
import { createSendRules } from './modules/messages/send-rules.js';
import { createModerationService } from './modules/moderation-rules/moderation.service.js';
import { createModeratorService } from './modules/moderators/moderator.service.js';
import { createModerationQueueService } from './modules/moderation-queue/queue.service.js';
import { createRulesService } from './modules/moderation-rules/rules.service.js';
import { createMessageFlagsService } from './modules/flags/message-flags.service.js';
import { createReactionsService } from './modules/reactions/reactions.service.js';
import { createRealtimeGateway, type GatewayOptions } from './modules/realtime/realtime.gateway.js';
import { createRealtimeStore } from './modules/realtime/realtime.store.js';
import { createPermissionsService } from './modules/roles/permissions.service.js';
import { createRolesService } from './modules/roles/roles.service.js';
import { createSocialService } from './modules/social/social.service.js';
import { createTokensService } from './modules/tokens/tokens.service.js';
import { createPrivacy } from './modules/privacy/privacy.js';
import { createTray } from './modules/tray/tray.js';
import { createUsersService } from './modules/users/users.service.js';
import { type BaseLookup, createWebhookTargets } from './modules/webhooks/webhook-targets.js';
import { createWebhooksService, type WebhookOptions } from './modules/webhooks/webhooks.service.js';
import { createPageTokens } from './shared/paging.js';
import { createDiskBlobStore } from './storage/blobs.js';
import { openStorage, type Storage } from './storage/database.js';
import { migrateToLatest } from './storage/migrate.js';
import { sweepOrphanBlobs } from './storage/orphan-blobs.js';
import { redisTargetOf, watchRedis } from './storage/redis-target.js';
import { loadOrCreateNetworkId, loadOrCreateSecret } from './storage/settings.js';

export interface ContainerOptions {
  storage?: Storage;
  clock?: AdjustableClock;
  gateway?: Partial<GatewayOptions>;
  relayPollMs?: number;
  webhooks?: Partial<WebhookOptions>;
  /** The resolver bot webhooks use (tests play DNS answers with it); default the OS resolver. */
  webhookLookup?: BaseLookup;
  /** Outbox pruning's timing (the retention is PARLEY_OUTBOX_RETENTION_HOURS); tests shorten the interval. */
  outboxPrune?: Partial<Omit<PruneOptions, 'retentionMs'>>;
  /** Message retention's timing and batches (the period is PARLEY_MESSAGE_RETENTION_DAYS and each channel's own). */
  retention?: Partial<RetentionOptions>;
  /** How often timed bans are looked at for lifting (default 30 s); tests shorten it. */
  banLiftIntervalMs?: number;
}

/**
 * The object graph, built once and in dependency order: storage and events first, then each module
 * with what it needs handed in. Nothing is a module-level singleton, so tests build many apps at once.
 */
export async function buildContainer(config: Config, log: FastifyBaseLogger, options: ContainerOptions = {}) {
  const base = await buildFoundation(config, log, options);
  const content = await buildContent(base);
  const people = await buildPeople(base, content);
  const delivery = await buildDelivery(base, content, people);
  // Bytes of uploads whose row never committed (a crash between the two) are removed before serving.
  const orphanBlobs = await sweepOrphanBlobs({
    blobs: base.blobs,
    references: [content.messages.referencedBlobKeys, people.identity.avatarBlobReferences],
    now: Date.now(),
    graceMs: config.blobSweepGraceMs,
  });
  if (orphanBlobs > 0) log.warn({ orphanBlobs }, 'removed blobs that no row points at');
  // Messages older than their channel's period are deleted in batches by one instance at a time.
  const retention = createMessageRetention({
    db: base.db,
    dialect: base.dialect,
    clock: base.clock,
    blobs: base.blobs,
    globalDays: config.messageRetentionDays,
    ...(options.retention ? { options: options.retention } : {}),
    onError: (error) => log.error({ err: error }, 'message retention failed'),
  });
  retention.start();
  // Erasure and export of one user's data, through the services that own each part.
  const privacy = createPrivacy({
    db: base.db,
    dialect: base.dialect,
    clock: base.clock,
    blobs: base.blobs,
    notices: base.notices,
    audit: base.audit,
    services: content,
  });
  // Erasures a stopped process left under way are finished in the background.
  const resumingErasures = privacy.erasure
    .resumePending()
    .then((count) => {
      if (count > 0) log.info({ erasures: count }, 'finished erasures left under way');
    })
    .catch((error: unknown) => log.error({ err: error }, 'finishing erasures left under way failed'));

  // Messages and active users per day, rolled up from the outbox by one instance at a time (modules/stats).
  await base.events.consumers.register('daily-stats', rollUpMessages, ['message.created'], { gatherMs: 1000 });
  const metricSources = {
    outboxLag: async () => Math.max(0, (await latestEventId(base.db)) - base.events.relay.position),
    connectedSockets: () => delivery.gateway.connectionCount,
    databasePool: () => base.storage.poolStats(),
  };
  return {
    ...base,
    ...content,
    ...people,
    ...delivery,
    retention,
    privacy,
    metricSources,
    // Totals, figures per day and this instance's figures for operators (GET /api/v2/stats, /stats/daily, /status).
    stats: createStatsService({ db: base.db, clock: base.clock, sources: metricSources }),
    // Every user's live login sessions, for the operator's list of who is signed in (GET /api/v2/sessions).
    liveSessions: createLiveSessions({ db: base.db, clock: base.clock, pageTokens: base.pageTokens }),
    // A user's tray as they see it, read-only, for the console's inspector.
    trayInspector: createTrayInspector({ tray: delivery.tray.service, pageTokens: base.pageTokens, requireUser: content.users.requireUser }),
    /** Stops background work and closes the database, in the reverse order of building. */
    async close(): Promise<void> {
      await resumingErasures;
      await retention.stop();
      await base.audit.close();
      await delivery.tray.stop();
      await people.banLifts.stop();
      await delivery.botRateLimiter.close();
      await delivery.outboxPruner.stop();
      await delivery.webhooks.stop();
      await base.events.stop();
      await base.redisHealth?.close();
      await base.storage.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof buildContainer>>;

/** Storage, clock, secrets, Redis, the event system and the tokens every surface authenticates with. */
async function buildFoundation(config: Config, log: FastifyBaseLogger, options: ContainerOptions) {
  const storage = options.storage ?? openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const clock = options.clock ?? new AdjustableClock();
  const { db, dialect } = storage;
  await migrateToLatest(db);
  const pageTokens = createPageTokens(await loadOrCreateSecret(db, 'page_token_secret'));
  // Redis (REDIS_URL) under a namespace of this database's own: deployments sharing a Redis stay apart.
  const redis = await redisTargetOf(db, config.redisUrl);
  // Fails the start-up in one line when Redis does not answer; afterwards logs its loss and return
  // once each, and tells /readyz.
  const redisHealth = redis ? await watchRedis(redis.url, log) : null;
  const events: EventSystem = await startEventSystem({ redis, db, dialect, clock, ...(options.relayPollMs ? { pollIntervalMs: options.relayPollMs } : {}) });
  const notices: Notices = await createNotices(events.bus, (error) => log.error({ err: error }, 'notice handler failed'));
  // Admin token revocations reach every instance's token cache through the notices.
  const tokens = createTokensService({ db, clock, notices });
  if (config.adminToken) await tokens.installEnvironmentAdminToken(config.adminToken);
  // One network id for userinfo and the tray: PARLEY_NETWORK_ID, else an id made once per database.
  const networkId = config.networkId ?? (await loadOrCreateNetworkId(db, clock.now()));
  const blobs = createDiskBlobStore(config.dataDir);
  // The audit trail of administrative actions: written in a command's transaction or just after the answer, pruned by one instance per period.
  const audit = createAuditService({
    db: db,
    dialect: dialect,
    clock: clock,
    pageTokens: pageTokens,
    retentionMs: config.auditRetentionMs,
    adminTokenNames: () => tokens.listAdminTokens(),
    // Entries hold ids only, so the log can keep what the database did not take.
    onLost: (error, entries) => log.error({ err: error, auditEntries: entries }, 'audit entries were not written'),
    onBackgroundError: (error) => log.error({ err: error }, 'audit retention prune failed'),
  });
  audit.start();
  return { config, log, options, storage, clock, db, dialect, pageTokens, tokens, redis, redisHealth, events, notices, networkId, blobs, audit };
}

type Foundation = Awaited<ReturnType<typeof buildFoundation>>;

/** Users and permissions, moderation rules, messages and their media, channels, reactions, flags and social posts. */
async function buildContent(base: Foundation) {
  const { db, dialect, clock, pageTokens, blobs, log, events } = base;
  const roles = createRolesService({ db, clock });
  const users = createUsersService({ db, clock, pageTokens, notices: base.notices, roles });
  const permissions = createPermissionsService({ db });
  // Blacklist and whitelist rules, compiled into one matcher kept current across instances.
  const moderation = createModerationService({
    db,
    bus: events.bus,
    onBackgroundError: (error) => log.error({ err: error }, 'moderation rules rebuild failed'),
  });
  await moderation.start();
  const messages = createMessagesService({
    db,
    dialect,
    sqlite: base.storage.sqlite,
    clock,
    pageTokens,
    blobs,
    textGuards: [moderation.guard],
    audit: base.audit,
    onBackgroundError: (error) => log.error({ err: error }, 'message media sweep failed'),
  });
  // Blobs of messages deleted just before a crash are removed at start.
  await messages.sweepDeletedMedia();
  const media = createMediaService({ messages, blobs, clock });
  // Closing a channel soft-deletes its messages in the close transaction.
  const channels = createChannelsService({
    db,
    dialect,
    clock,
    pageTokens,
    closeHooks: [(trx, channelId, now) => messages.deleteAllOnClose(trx, channelId, now)],
  });
  // Texts outside a message (posts, reaction names) pass the same rules, `field` naming them in the body.
  const guardOneText = (actor: { userId: string }, field: string, text: string) => moderation.guard(actor, { texts: [{ field, text }] });
  const reactions = createReactionsService({
    db,
    dialect,
    clock,
    pageTokens,
    findMember: (channelId, userId) => channels.findMember(channelId, userId),
    findUsers: (userIds) => users.findByIds(userIds),
    nameGuards: [(actor, name) => guardOneText(actor, 'reactionName', name)],
  });
  const messageFlags = createMessageFlagsService({ db, clock, reactions });
  const social = createSocialService({ db, dialect, clock, textGuards: [(text, actor, field) => guardOneText(actor, field, text)] });
  const rules = createRulesService({ db, clock, moderation });
  // Who may read and post in a channel, for the client and bot APIs.
  const sendRules = createSendRules({ db, dialect, clock });
  return { users, roles, permissions, moderation, messages, media, channels, reactions, messageFlags, social, rules, sendRules };
}

type Content = Awaited<ReturnType<typeof buildContent>>;

/** Users, roles, permissions, sign-in (OpenID Connect, OAuth clients, bots, avatars), authenticators, moderation and timed bans. */
async function buildPeople(base: Foundation, content: Content) {
  const { db, clock, config, log, tokens, notices } = base;
  const { users, permissions, roles } = content;
  // Where bot webhooks may connect: public addresses, plus what PARLEY_WEBHOOK_ALLOWED_HOSTS lists.
  const webhookTargets = createWebhookTargets(config.webhookAllowedHosts, base.options.webhookLookup);
  const identity = await createIdentity({
    db,
    dialect: base.dialect,
    clock,
    notices,
    config,
    networkId: base.networkId,
    webhookTargets,
    blobs: base.blobs,
    tokens,
    users,
    onBackgroundError: (error) => log.error({ err: error }, 'sign-in housekeeping failed'),
  });
  // A banned bot stops getting tokens at once.
  notices.on('user.globalBanChanged', () => identity.clients.forgetCached());
  const isGloballyBanned = (userId: string) => users.isGloballyBanned(userId);
  const authenticateUser = createEndUserAuthenticator(tokens, isGloballyBanned);
  const authenticateBot = createEndUserAuthenticator(tokens, isGloballyBanned, ['bot']);
  // The caller's own view on the client API: profile, channels, read markers.
  const inbox = createInboxService({ db, clock, sendRules: content.sendRules, findUser: (userId) => users.findById(userId) });
  const bots = createBotService({
    channels: content.channels,
    findUser: (userId) => users.findById(userId),
    messages: content.messages,
    media: content.media,
    sendRules: content.sendRules,
  });
  // Timed bans, global or from a channel, whoever set them: a periodic look lifts those due.
  const banLifts = createBanLifts({
    db,
    clock,
    channels: content.channels,
    users,
    ...(base.options.banLiftIntervalMs ? { intervalMs: base.options.banLiftIntervalMs } : {}),
    onBackgroundError: (error) => log.error({ err: error }, 'timed ban lift failed'),
  });
  banLifts.start();
  // Bans by hand, each with its lift and audit entry in one transaction, whoever sets them.
  const bans = createBanCommands({ db, clock, channels: content.channels, users, audit: base.audit });
  // What a user whose roles grant a permission may do as a moderator from the client API.
  const moderator = createModeratorService({ channels: content.channels, users, permissions, messages: content.messages, bans });
  // The admin API's moderation queue: reviews act through the same services as the admin routes.
  const moderationQueue = createModerationQueueService({
    db,
    clock,
    pageTokens: base.pageTokens,
    messages: content.messages,
    channels: content.channels,
    users,
    banLifts,
    audit: base.audit,
  });
  return { roles, webhookTargets, identity, authenticateUser, authenticateBot, inbox, bots, moderator, banLifts, bans, moderationQueue };
}

type People = Awaited<ReturnType<typeof buildPeople>>;

/** What leaves the process: the real-time gateway, the tray, bot webhooks and the bot rate limit. */
async function buildDelivery(base: Foundation, content: Content, people: People) {
  const { db, dialect, clock, config, log, events, notices, redis } = base;
  const tray = await createTray({
    db,
    sqlite: base.storage.sqlite,
    clock,
    events,
    intervalsOf: content.social.intervalsOf,
    options: { enabled: config.trayEnabled, networkId: base.networkId, publicUrl: config.publicUrl, redis, consumerDelayMs: config.trayConsumerDelayMs },
  });
  // Bot webhooks: a durable consumer schedules one delivery per (bot member, user message) in its own
  // transaction; the sender posts them signed with the bot's client secret and retries for a day.
  const webhooks = createWebhooksService({
    db,
    dialect,
    clock,
    resolve: people.identity.resolveBotWebhook,
    targets: people.webhookTargets,
    // A name that resolves to an internal address passes bot creation (only literals are checked there).
    onRefused: (botUserId, reason) => log.warn({ botUserId, reason }, 'bot webhook refused: internal address'),
    ...(base.options.webhooks ? { options: base.options.webhooks } : {}),
  });
  await events.consumers.register('webhooks', (trx, batch) => webhooks.schedule(trx, batch), ['message.created']);
  webhooks.start();
  const gateway = createRealtimeGateway({
    store: createRealtimeStore(db, dialect),
    clock,
    options: base.options.gateway ?? {},
    onError: (error) => log.warn({ err: error }, 'stream re-check failed'),
  });
  // A ban ends the user's streams at once, on every instance the bus reaches.
  notices.on('user.globalBanChanged', ({ userId, banned }) => {
    if (banned) gateway.disconnectBanned(userId);
  });
  // A revocation ends the streams opened with the tokens it revoked, the same way.
  notices.on('user.tokensRevoked', ({ userId }) => {
    void gateway.endRevoked(userId);
  });
  // A deleted OAuth client's tokens are revoked with it; whose they were is not known, so every stream is checked once.
  notices.on('oauthClient.deleted', () => {
    void gateway.endAllRevoked();
  });
  events.relay.onEvents((batch) => gateway.deliver(batch));
  const botRateLimiter = createRateLimiter({ redis });
  // Outbox retention: events older than the resume window go, never before every consumer has them.
  const outboxPruner = createOutboxPruner({
    db,
    dialect,
    clock,
    options: { retentionMs: config.outboxRetentionMs, ...base.options.outboxPrune },
    onHeldBack: (held) => log.warn(held, 'an outbox consumer holds events past the retention; delete its outbox_consumers row if it is retired'),
    onError: (error) => log.error({ err: error }, 'outbox prune failed'),
  });
  outboxPruner.start();
  return { tray, webhooks, gateway, botRateLimiter, outboxPruner };
}
