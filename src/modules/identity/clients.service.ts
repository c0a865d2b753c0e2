import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Notices } from '../../events/notices.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { parseJson } from '../../shared/values.js';
import { insertAccountUser } from '../users/users.service.js';
import type { WebhookTargets } from '../webhooks/webhook-targets.js';
import { type BotRow, type ClientRow, type ClientsStore, createClientsStore } from './clients.store.js';
import { CONSOLE_CLIENT_ID } from './console-client.js';
import type { Sealer } from './server-key.js';

export type IdTokenAlg = 'HS256' | 'RS256';
export type ClientGrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

export interface CreateClientInput {
  name: string;
  redirectUris: string[];
  /** Where RP-Initiated Logout may send the browser back to (exact matches); none by default. */
  postLogoutRedirectUris?: string[];
  grantTypes?: Array<'authorization_code' | 'refresh_token'>;
  public?: boolean;
  idTokenSignedResponseAlg?: IdTokenAlg;
}

export interface UpdateClientInput {
  name?: string | undefined;
  redirectUris?: string[] | undefined;
  postLogoutRedirectUris?: string[] | undefined;
}

export interface CreateBotInput {
  displayName: string;
  webhookUrl?: string;
}

/** A client as the sign-in steps use it: parsed, with its secret opened only when asked. */
export interface OAuthClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: ClientGrantType[];
  isPublic: boolean;
  idTokenAlg: IdTokenAlg;
  botUserId: string | null;
  /** For bot clients: whether the bot user is globally banned. */
  botBanned: boolean;
  row: ClientRow;
}

const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

function invalidUri(field: string, index: number, message: string): AppError {
  return new AppError('parameters', `${field}[${index}] ${message}.`, { detail: [{ field: `body.${field}[${index}]`, message }] });
}

/**
 * Absolute, no fragment, not a scheme that runs code (RFC 6749 section 3.1.2; OAuth 2.0 Security BCP).
 * `field` names the list in a refusal: redirectUris, or postLogoutRedirectUris (RP-Initiated Logout
 * 3.1 sets the same rules).
 */
export function checkRedirectUris(uris: readonly string[], field = 'redirectUris'): string[] {
  uris.forEach((uri, index) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw invalidUri(field, index, 'must be an absolute URI');
    }
    if (REFUSED_SCHEMES.has(url.protocol)) throw invalidUri(field, index, `must not use the ${url.protocol} scheme`);
    if (uri.includes('#')) throw invalidUri(field, index, 'must not contain a fragment');
    // A URI is ASCII (RFC 3986); anything else cannot go back in a Location header as registered.
    if (!/^[\x21-\x7e]+$/.test(uri)) throw invalidUri(field, index, 'must be printable ASCII without spaces: percent-encode other characters');
  });
  return [...new Set(uris)];
}

export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * What a client id can look like (they are object ids; printable ASCII leaves room): anything else,
 * such as a NUL in Basic credentials, which PostgreSQL refuses, is unknown without a query.
 */
const CLIENT_ID_SHAPE = /^[\x21-\x7e]{1,64}$/;

const sealContext = (clientId: string): string => `client:${clientId}`;

/**
 * The token endpoint reads its client from a cache for at most this long. A deleted client or a
 * banned bot stops getting tokens at once on this instance and, through the notices
 * (`oauthClient.deleted`, `user.globalBanChanged`), on every instance the bus reaches; within this
 * bound in any case (the bus down, a deletion by the CLI).
 */
const CLIENT_CACHE_MS = 2000;
const CLIENT_CACHE_ENTRIES = 1000;

/** An http(s) URL whose host is not an internal address by its spelling (webhook-targets.ts), or 422. */
function requireWebhookUrl(targets: WebhookTargets, text: string): void {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new AppError('parameters', 'webhookUrl must be an http or https URL.', {
      detail: [{ field: 'body.webhookUrl', message: 'must be an http or https URL' }],
    });
  }
  const refusal = targets.refusalOf(url);
  if (refusal !== null) {
    throw new AppError('parameters', `webhookUrl is not allowed: ${refusal}.`, { detail: [{ field: 'body.webhookUrl', message: refusal }] });
  }
}

function toClient(row: ClientRow, botBanned = false): OAuthClient {
  return {
    clientId: row.client_id,
    name: row.name,
    redirectUris: parseJson<string[]>(row.redirect_uris, []),
    postLogoutRedirectUris: parseJson<string[]>(row.post_logout_redirect_uris, []),
    grantTypes: parseJson<ClientGrantType[]>(row.grant_types, []),
    isPublic: row.is_public === 1,
    idTokenAlg: row.id_token_alg === 'RS256' ? 'RS256' : 'HS256',
    botUserId: row.bot_user_id,
    botBanned,
    row,
  };
}

interface NewClient {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: ClientGrantType[];
  isPublic: boolean;
  alg: IdTokenAlg;
  botUserId: string | null;
  now: number;
}

/** A new client's row, its secret sealed; the secret in clear is answered once, here. */
function clientRow(sealer: Sealer, input: NewClient): { row: ClientRow; secret: string | null } {
  const clientId = newObjectId(input.now);
  const secret = input.isPublic ? null : newClientSecret();
  const row: ClientRow = {
    client_id: clientId,
    name: input.name,
    secret_sealed: secret === null ? null : sealer.seal(secret, sealContext(clientId)),
    redirect_uris: JSON.stringify(input.redirectUris),
    post_logout_redirect_uris: JSON.stringify(input.postLogoutRedirectUris),
    grant_types: JSON.stringify(input.grantTypes),
    is_public: input.isPublic ? 1 : 0,
    id_token_alg: input.alg,
    bot_user_id: input.botUserId,
    created_at: input.now,
    updated_at: input.now,
  };
  return { row, secret };
}

/** A sign-in client as registered: its redirect URIs checked, its ID token algorithm one it can use. */
function signInClient(input: CreateClientInput, now: number): NewClient {
  const isPublic = input.public === true;
  // A public client has no secret to key HS256 with: its ID tokens are RS256, verified through /oauth/jwks.
  if (isPublic && input.idTokenSignedResponseAlg === 'HS256') {
    throw new AppError('parameters', 'A public client has no secret, so its ID tokens cannot be HS256.', {
      detail: [{ field: 'body.idTokenSignedResponseAlg', message: 'must be RS256 for a public client' }],
    });
  }
  const redirectUris = checkRedirectUris(input.redirectUris);
  if (redirectUris.length === 0) {
    throw new AppError('parameters', 'redirectUris needs at least one URI.', { detail: [{ field: 'body.redirectUris', message: 'must not be empty' }] });
  }
  // The code grant always comes with refresh tokens (docs/contract.md, Sign-in details).
  const grantTypes: ClientGrantType[] = ['authorization_code', 'refresh_token'];
  const alg = input.idTokenSignedResponseAlg ?? (isPublic ? 'RS256' : 'HS256');
  const postLogoutRedirectUris = checkRedirectUris(input.postLogoutRedirectUris ?? [], 'postLogoutRedirectUris');
  return { name: input.name, redirectUris, postLogoutRedirectUris, grantTypes, isPublic, alg, botUserId: null, now };
}

/** The URI columns a client update writes, checked as a registration's; a bot's client has none to change. */
function uriChangesOf(existing: ClientRow, changes: UpdateClientInput): { redirect_uris?: string; post_logout_redirect_uris?: string } {
  const { redirectUris, postLogoutRedirectUris } = changes;
  if (redirectUris === undefined && postLogoutRedirectUris === undefined) return {};
  if (existing.bot_user_id !== null) {
    const field = redirectUris !== undefined ? 'body.redirectUris' : 'body.postLogoutRedirectUris';
    throw new AppError('parameters', "A bot's client signs no one in: it has no redirect URIs.", {
      detail: [{ field, message: "must be left out for a bot's client" }],
    });
  }
  const set: { redirect_uris?: string; post_logout_redirect_uris?: string } = {};
  if (redirectUris !== undefined) {
    const uris = checkRedirectUris(redirectUris);
    if (uris.length === 0)
      throw new AppError('parameters', 'redirectUris needs at least one URI.', { detail: [{ field: 'body.redirectUris', message: 'must not be empty' }] });
    set.redirect_uris = JSON.stringify(uris);
  }
  if (postLogoutRedirectUris !== undefined) set.post_logout_redirect_uris = JSON.stringify(checkRedirectUris(postLogoutRedirectUris, 'postLogoutRedirectUris'));
  return set;
}

/** The fields a registration sets: equal ones need no write. */
const REGISTRATION_FIELDS = [
  'name',
  'secret_sealed',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'is_public',
  'id_token_alg',
  'bot_user_id',
] as const;

const sameRegistration = (stored: ClientRow, wanted: ClientRow): boolean => REGISTRATION_FIELDS.every((field) => stored[field] === wanted[field]);

/** Clients the token endpoint read lately, until when each may be answered from here. */
type ClientCache = Map<string, { client: OAuthClient; until: number }>;

/** How the sign-in steps and the token endpoint find a client, and open its secret. */
function clientLookups(store: ClientsStore, clock: Clock, sealer: Sealer, cache: ClientCache) {
  const openedSecrets = new WeakMap<OAuthClient, string | null>();

  return {
    /** Drops every cached client: a bot's ban changed (bans are rare, so no finer bookkeeping). */
    forgetCached(): void {
      cache.clear();
    },

    /** The client the token endpoint authenticates, with its bot's ban flag; null when unknown. */
    async findForToken(clientId: string): Promise<OAuthClient | null> {
      if (!CLIENT_ID_SHAPE.test(clientId)) return null;
      const now = clock.now();
      const cached = cache.get(clientId);
      if (cached && cached.until > now) return cached.client;
      const row = await store.findClientWithBot(clientId);
      if (!row) {
        cache.delete(clientId);
        return null;
      }
      const { bot_is_global_ban: botBan, ...rest } = row;
      const client = toClient(rest, botBan === 1);
      // Only registered clients are cached, so unknown ids cannot fill it; it is bounded all the same.
      if (cache.size >= CLIENT_CACHE_ENTRIES) cache.clear();
      cache.set(clientId, { client, until: now + CLIENT_CACHE_MS });
      return client;
    },

    async find(clientId: string): Promise<OAuthClient | null> {
      if (!CLIENT_ID_SHAPE.test(clientId)) return null;
      const row = await store.findClient(clientId);
      return row ? toClient(row) : null;
    },

    /** The client secret in clear: the HS256 key of its ID tokens. */
    secretOf(client: OAuthClient): string | null {
      let secret = openedSecrets.get(client);
      if (secret === undefined) {
        secret = client.row.secret_sealed === null ? null : sealer.open(client.row.secret_sealed, sealContext(client.clientId));
        openedSecrets.set(client, secret);
      }
      return secret;
    },
  };
}

export function createClientsService(deps: {
  db: Executor;
  clock: Clock;
  sealer: Sealer;
  /** A bot's webhook URL is refused here when it names an internal address. */
  webhookTargets: WebhookTargets;
  /** The server's notices: deletions are told to the other instances' caches; absent in the CLI. */
  notices?: Pick<Notices, 'publish' | 'on'>;
}) {
  const { db, clock, sealer } = deps;
  const store = createClientsStore(db);
  const cache: ClientCache = new Map();
  deps.notices?.on('oauthClient.deleted', ({ clientId }) => cache.delete(clientId));

  return {
    toClient,

    async create(input: CreateClientInput): Promise<{ row: ClientRow; secret: string | null }> {
      const { row, secret } = clientRow(sealer, signInClient(input, clock.now()));
      await store.insertClient(row);
      return { row, secret };
    },

    /**
     * A public client the server registers itself under a fixed id (the console's): written when
     * missing or when the stored one differs from `input` (PUBLIC_URL changed), else left alone.
     * One statement, so instances starting together on one database agree.
     */
    async ensureFixedClient(clientId: string, input: CreateClientInput & { public: true }): Promise<'created' | 'updated' | 'unchanged'> {
      const existing = await store.findClient(clientId);
      const { row } = clientRow(sealer, signInClient(input, clock.now()));
      const wanted: ClientRow = { ...row, client_id: clientId, created_at: existing?.created_at ?? row.created_at };
      if (existing && sameRegistration(existing, wanted)) return 'unchanged';
      await store.upsertClient(wanted);
      cache.delete(clientId);
      return existing ? 'updated' : 'created';
    },

    /** A bot user and its client_credentials client, in one transaction. */
    async createBot(input: CreateBotInput): Promise<{ userId: string; row: ClientRow; secret: string }> {
      if (input.webhookUrl !== undefined) requireWebhookUrl(deps.webhookTargets, input.webhookUrl);
      const now = clock.now();
      const userId = newObjectId(now);
      const { row, secret } = clientRow(sealer, {
        name: input.displayName,
        redirectUris: [],
        postLogoutRedirectUris: [],
        grantTypes: ['client_credentials'],
        isPublic: false,
        alg: 'HS256',
        botUserId: userId,
        now,
      });
      await runTransaction(db, async (trx) => {
        const scoped = createClientsStore(trx);
        // The bot's users row, in the transaction that writes its client and bot rows.
        await insertAccountUser(trx, { id: userId, kind: 'bot', displayName: input.displayName, now });
        await scoped.insertClient(row);
        await scoped.insertBot({ user_id: userId, client_id: row.client_id, webhook_url: input.webhookUrl ?? null, created_at: now });
      });
      return { userId, row, secret: secret as string };
    },

    async list(): Promise<ClientRow[]> {
      return store.listClients();
    },

    async get(clientId: string): Promise<ClientRow> {
      const row = await store.findClient(clientId);
      if (!row) throw notFound('Client');
      return row;
    },

    /**
     * Changes a client's name and URIs; the fields left out stay. The console's own client is the
     * server's to write (it rewrites it at every start), so it is refused; a bot's client signs no one
     * in, so it takes a name only. Answers the client as it is after the change.
     */
    async update(clientId: string, changes: UpdateClientInput): Promise<ClientRow> {
      if (clientId === CONSOLE_CLIENT_ID) {
        throw new AppError(
          'conflict',
          `${CONSOLE_CLIENT_ID} is the admin console's sign-in client, which the server registers at every start from PUBLIC_URL: it cannot be changed here (change PUBLIC_URL instead).`,
        );
      }
      const existing = await store.findClient(clientId);
      if (!existing) throw notFound('Client');
      const set = { ...uriChangesOf(existing, changes), ...(changes.name === undefined ? {} : { name: changes.name }), updated_at: clock.now() };
      const row = await store.updateClient(clientId, set);
      cache.delete(clientId);
      if (!row) throw notFound('Client');
      return row;
    },

    /** Every bot: its user, client, display name and webhook URL, oldest first. */
    async listBots(): Promise<Array<BotRow & { display_name: string | null }>> {
      return store.listBots();
    },

    /** Deletes a client and revokes every token issued to it. */
    async remove(clientId: string): Promise<void> {
      if (clientId === CONSOLE_CLIENT_ID) {
        throw new AppError(
          'conflict',
          `${CONSOLE_CLIENT_ID} is the admin console's sign-in client, which the server registers at every start: it cannot be deleted (the console at /console signs people in with it).`,
        );
      }
      const now = clock.now();
      const deleted = await runTransaction(db, async (trx) => {
        const scoped = createClientsStore(trx);
        if (!(await scoped.deleteClient(clientId))) return false;
        await scoped.revokeAccessTokensOfClient(clientId, now);
        return true;
      });
      cache.delete(clientId);
      if (!deleted) throw notFound('Client');
      deps.notices?.publish({ type: 'oauthClient.deleted', clientId });
    },

    ...clientLookups(store, clock, sealer, cache),

    /** Points a bot's webhooks somewhere else, or nowhere (null); the next attempt of a pending delivery uses it. */
    async setBotWebhook(botUserId: string, webhookUrl: string | null): Promise<{ userId: string; clientId: string; webhookUrl: string | null }> {
      if (webhookUrl !== null) requireWebhookUrl(deps.webhookTargets, webhookUrl);
      const bot = await store.updateBotWebhook(botUserId, webhookUrl);
      if (!bot) throw notFound('Bot');
      return { userId: bot.user_id, clientId: bot.client_id, webhookUrl: bot.webhook_url };
    },

    /** For the webhooks module: where a bot's events go and the secret that signs them. */
    async resolveBotWebhook(botUserId: string): Promise<{ url: string; secret: string } | null> {
      const bot = await store.findBotWithClient(botUserId);
      // A globally banned bot gets nothing, like its closed sockets: deliveries already scheduled give up.
      if (!bot || bot.webhook_url === null || bot.secret_sealed === null || bot.is_global_ban === 1) return null;
      return { url: bot.webhook_url, secret: sealer.open(bot.secret_sealed, sealContext(bot.client_id)) };
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
