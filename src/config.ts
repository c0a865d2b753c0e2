import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';

/**
 * The one typed configuration. Read once at boot from the environment; every other module receives
 * the parsed object, so `process.env` is touched nowhere else.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Base URL used in links and as the default OIDC issuer. */
  publicUrl: string;
  oidcIssuer: string;
  /** PostgreSQL URL; when absent the embedded SQLite database in dataDir is used. */
  databaseUrl: string | null;
  redisUrl: string | null;
  /** An admin token accepted from start-up, for automation. */
  adminToken: string | null;
  trayEnabled: boolean;
  /**
   * PARLEY_NETWORK_ID: the deployment's network id, in userinfo (`nid`, `networkId`) and in tray records
   * (`networkId`, `lastRead.netid_uid`). Null when unset: an id made once per database is used.
   */
  networkId: string | null;
  /** PARLEY_TRAY_CONSUMER_DELAY_MS, test only: the tray consumes an event no sooner than this after commit. */
  trayConsumerDelayMs: number;
  testClock: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted upload, in bytes. */
  uploadLimitBytes: number;
  /** PARLEY_BOT_RATE_LIMIT: messages a bot may send per rate window (default 30). */
  botRateLimit: number;
  /** PARLEY_BOT_RATE_WINDOW_MS: the bot rate window (default 1000 ms, so 30 messages/s). */
  botRateWindowMs: number;
  /**
   * The client API's limits: requests per user and route class in one window, counted in Redis when
   * REDIS_URL is set. PARLEY_CLIENT_RATE_WINDOW_MS (default 10000), PARLEY_CLIENT_RATE_SEND (messages,
   * uploads, posts, comments and every other write; default 100), PARLEY_CLIENT_RATE_REACT (default
   * 200), PARLEY_CLIENT_RATE_FLAG (default 30), PARLEY_CLIENT_RATE_READ (reads and read markers;
   * default 1000). 0 turns a class's limit off.
   */
  clientRateLimits: ClientRateLimits;
  /**
   * PARLEY_SECRET_KEY: the server key that encrypts OAuth client secrets and the ID-token signing key
   * at rest. When absent, a random key is kept in DATA_DIR/secret.key (mode 0600). Every instance on
   * one database needs the same key, so set it explicitly when instances do not share DATA_DIR.
   */
  secretKey: string | null;
  /**
   * PARLEY_BLOB_SWEEP_GRACE_SECONDS: the start-up sweep of unreferenced blobs (left by a crash between
   * writing an upload and committing its row) spares blobs younger than this, which may belong to an
   * upload in flight on another instance. Default 0 on SQLite (one instance owns DATA_DIR), 600 with
   * DATABASE_URL.
   */
  blobSweepGraceMs: number;
  /**
   * PARLEY_REQUEST_TIMEOUT_SECONDS: the longest a client may take to send one whole request, upload
   * included (default 300, Node's own; Fastify's default is none, so a half-sent upload held its
   * connection and its buffered part for ever). At 300 s a 25 MB upload needs about 0.7 Mbit/s.
   */
  requestTimeoutMs: number;
  /**
   * PARLEY_WEBHOOK_ALLOWED_HOSTS: comma-separated host names, addresses and CIDR ranges that bot webhooks
   * may reach although internal (loopback, private, link-local...). Empty by default: webhooks go to
   * public addresses only (modules/webhooks/webhook-targets.ts).
   */
  webhookAllowedHosts: string[];
  /**
   * PARLEY_OUTBOX_RETENTION_HOURS: how long outbox events are kept, the window a stream can resume in
   * with `since` (default 168, 7 days; from 1 to 87600). Older events are pruned in small batches by one
   * instance of the deployment at a time, never past an event a durable consumer has not handled.
   */
  outboxRetentionMs: number;
  /**
   * PARLEY_REFRESH_REUSE_WINDOW_SECONDS: how long after a refresh token is rotated the same client may
   * present it again and be answered (a fresh pair of the same family) instead of having the family
   * revoked as a replay: relying parties such as mod_auth_openidc refresh from two requests at once.
   * Default 30, at most 60; 0 turns the window off.
   */
  refreshReuseWindowMs: number;
  /**
   * PARLEY_AUDIT_RETENTION_DAYS: audit entries older than this are pruned by a background job, one
   * instance of the deployment at a time (default 365, from 1 to 36500).
   */
  auditRetentionMs: number;
  /**
   * PARLEY_MESSAGE_RETENTION_DAYS: messages (and their files) older than this are deleted by a background
   * job, one instance of the deployment at a time; a channel's own period overrides it. Default 0, which
   * keeps messages for ever; at most 36500.
   */
  messageRetentionDays: number;
}

/** Requests a user may make per window in each route class of the client API; 0 is no limit. */
export interface ClientRateLimits {
  windowMs: number;
  send: number;
  react: number;
  flag: number;
  read: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function readPort(env: Env): number {
  const raw = env.PORT;
  if (raw === undefined || raw === '') return 8080;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535 (got "${raw}"); 0 lets the OS pick.`);
  }
  return port;
}

function readFlag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw.toLowerCase() === 'false') return false;
  if (raw === '1' || raw.toLowerCase() === 'true') return true;
  throw new ConfigError(`${name} must be 1, true, 0 or false (got "${raw}").`);
}

/** A URL setting; trailing slashes are dropped unless `keepAsWritten` (an issuer is compared exactly). */
function readUrl(env: Env, name: string, protocols: string[], keepAsWritten = false): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL such as ${protocols[0]}//host (got something that is not a URL).`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')} (got ${url.protocol}).`);
  }
  return keepAsWritten ? raw : raw.replace(/\/+$/, '');
}

function readUploadLimit(env: Env): number {
  const raw = env.PARLEY_UPLOAD_LIMIT_MB;
  if (raw === undefined || raw === '') return 25 * 1024 * 1024;
  const mb = Number(raw);
  if (!Number.isFinite(mb) || mb <= 0 || mb > 1024) {
    throw new ConfigError(`PARLEY_UPLOAD_LIMIT_MB must be a number of megabytes from 1 to 1024 (got "${raw}").`);
  }
  return Math.floor(mb * 1024 * 1024);
}

function readWebhookAllowedHosts(env: Env): string[] {
  const entries = (env.PARLEY_WEBHOOK_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const invalid = invalidAllowedHostEntries(entries);
  if (invalid.length > 0) {
    throw new ConfigError(
      `PARLEY_WEBHOOK_ALLOWED_HOSTS takes host names, addresses and CIDR ranges such as 10.0.0.0/8, comma-separated (not "${invalid.join('", "')}").`,
    );
  }
  return entries;
}

function readNetworkId(env: Env): string | null {
  const raw = env.PARLEY_NETWORK_ID;
  if (raw === undefined || raw === '') return null;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(raw)) {
    throw new ConfigError(`PARLEY_NETWORK_ID must be 1 to 64 letters, digits, dots, dashes or underscores (got "${raw}").`);
  }
  return raw;
}

function readGraceSeconds(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 86_400)
    throw new ConfigError(`${name} must be a whole number of seconds from 0 to 86400 (got "${raw}").`);
  return seconds;
}

function readDelay(env: Env, name: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return 0;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0 || ms > 600_000) throw new ConfigError(`${name} must be a whole number of milliseconds from 0 to 600000 (got "${raw}").`);
  return ms;
}

function readWholeNumber(env: Env, name: string, fallback: number, min: number, max: number, unit: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number of ${unit} from ${min} to ${max} (got "${raw}").`);
  }
  return value;
}

function readClientRateLimits(env: Env): ClientRateLimits {
  const limit = (name: string, fallback: number) => readWholeNumber(env, name, fallback, 0, 1_000_000, 'requests');
  return {
    windowMs: readWholeNumber(env, 'PARLEY_CLIENT_RATE_WINDOW_MS', 10_000, 100, 3_600_000, 'milliseconds'),
    send: limit('PARLEY_CLIENT_RATE_SEND', 100),
    react: limit('PARLEY_CLIENT_RATE_REACT', 200),
    flag: limit('PARLEY_CLIENT_RATE_FLAG', 30),
    read: limit('PARLEY_CLIENT_RATE_READ', 1000),
  };
}

/** The stat of `file`, or null when nothing is there (ENOTDIR: a parent on the way is a file). */
function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** The nearest part of `dir` that exists: itself, else its parent, and so on up to the root. */
function nearestExisting(dir: string): { path: string; stat: fs.Stats | null } {
  let current = dir;
  let stat = statOrNull(current);
  while (stat === null && path.dirname(current) !== current) {
    current = path.dirname(current);
    stat = statOrNull(current);
  }
  return { path: current, stat };
}

/**
 * DATA_DIR is created at start-up when missing; a path that is (or runs through) a file would fail
 * there with a bare EEXIST / ENOTDIR from mkdir, so it is refused here with what to change.
 */
function checkDataDir(dataDir: string): void {
  const existing = nearestExisting(dataDir);
  if (existing.stat === null || existing.stat.isDirectory()) return;
  if (existing.path === dataDir)
    throw new ConfigError(`DATA_DIR ${dataDir} is a file, not a directory: point DATA_DIR at a directory (it is created if missing).`);
  throw new ConfigError(`DATA_DIR ${dataDir} cannot be created because ${existing.path} is a file: point DATA_DIR at a directory.`);
}

/**
 * Whether failures print their stack trace: PARLEY_DEBUG=1, or LOG_LEVEL debug or trace. Read apart
 * from loadConfig, because a configuration that does not load must still be reported.
 */
export function wantsStackTraces(env: Env = process.env): boolean {
  const level = (env.LOG_LEVEL ?? '').toLowerCase();
  return env.PARLEY_DEBUG === '1' || env.PARLEY_DEBUG?.toLowerCase() === 'true' || level === 'debug' || level === 'trace';
}

export function loadConfig(env: Env = process.env): Config {
  const port = readPort(env);
  const host = env.HOST && env.HOST !== '' ? env.HOST : '127.0.0.1';
  const dataDir = path.resolve(env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data');
  checkDataDir(dataDir);
  const publicUrl = readUrl(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // The issuer exactly as configured: relying parties compare `iss` with it character for character.
  const oidcIssuer = readUrl(env, 'OIDC_ISSUER', ['http:', 'https:'], true) ?? publicUrl;
  const adminToken = env.PARLEY_ADMIN_TOKEN && env.PARLEY_ADMIN_TOKEN !== '' ? env.PARLEY_ADMIN_TOKEN : null;
  if (adminToken !== null && adminToken.length < 32) {
    throw new ConfigError('PARLEY_ADMIN_TOKEN must be at least 32 characters; `openssl rand -hex 32` makes a good one.');
  }
  const secretKey = env.PARLEY_SECRET_KEY && env.PARLEY_SECRET_KEY !== '' ? env.PARLEY_SECRET_KEY : null;
  if (secretKey !== null && secretKey.length < 32) {
    throw new ConfigError('PARLEY_SECRET_KEY must be at least 32 characters; `openssl rand -base64 32` makes a good one.');
  }
  const rawLevel = (env.LOG_LEVEL ?? 'info').toLowerCase();
  const logLevel = LOG_LEVELS.find((level) => level === rawLevel);
  if (logLevel === undefined) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}").`);
  }
  const databaseUrl = readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  return {
    port,
    host,
    dataDir,
    publicUrl,
    oidcIssuer,
    databaseUrl,
    redisUrl: readUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    adminToken,
    trayEnabled: readFlag(env, 'PARLEY_TRAY_ENABLED'),
    networkId: readNetworkId(env),
    trayConsumerDelayMs: readDelay(env, 'PARLEY_TRAY_CONSUMER_DELAY_MS'),
    testClock: readFlag(env, 'PARLEY_TEST_CLOCK'),
    logLevel,
    uploadLimitBytes: readUploadLimit(env),
    botRateLimit: readWholeNumber(env, 'PARLEY_BOT_RATE_LIMIT', 30, 1, 1_000_000, 'messages'),
    botRateWindowMs: readWholeNumber(env, 'PARLEY_BOT_RATE_WINDOW_MS', 1000, 100, 3_600_000, 'milliseconds'),
    clientRateLimits: readClientRateLimits(env),
    secretKey,
    blobSweepGraceMs: readGraceSeconds(env, 'PARLEY_BLOB_SWEEP_GRACE_SECONDS', databaseUrl === null ? 0 : 600) * 1000,
    requestTimeoutMs: readWholeNumber(env, 'PARLEY_REQUEST_TIMEOUT_SECONDS', 300, 1, 86_400, 'seconds') * 1000,
    webhookAllowedHosts: readWebhookAllowedHosts(env),
    outboxRetentionMs: readWholeNumber(env, 'PARLEY_OUTBOX_RETENTION_HOURS', 168, 1, 87_600, 'hours') * 3_600_000,
    refreshReuseWindowMs: readWholeNumber(env, 'PARLEY_REFRESH_REUSE_WINDOW_SECONDS', 30, 0, 60, 'seconds') * 1000,
    auditRetentionMs: readWholeNumber(env, 'PARLEY_AUDIT_RETENTION_DAYS', 365, 1, 36_500, 'days') * 86_400_000,
    messageRetentionDays: readWholeNumber(env, 'PARLEY_MESSAGE_RETENTION_DAYS', 0, 0, 36_500, 'days'),
  };
}

/** PARLEY_WEBHOOK_ALLOWED_HOSTS entries that are none of the three forms (name, address, CIDR range). */
function invalidAllowedHostEntries(entries: string[]): string[] {
  return entries.filter((entry) => {
    const [address, prefix, extra] = entry.split('/');
    if (extra !== undefined || address === undefined) return true;
    if (prefix !== undefined) {
      const bits = Number(prefix);
      const max = net.isIPv4(address) ? 32 : net.isIPv6(address) ? 128 : -1;
      return !(max > 0 && /^\d+$/.test(prefix) && bits <= max);
    }
    return !(net.isIP(address) !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(address));
  });
}
