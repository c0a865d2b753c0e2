import crypto, { createHash, randomFillSync } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Notices } from '../../events/notices.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { ensureAccountUser } from '../users/users.service.js';
import { createTokensStore, type TokenRow } from './tokens.store.js';

export type TokenKind = 'admin' | 'user' | 'bot';

/** Who is calling, as resolved from a bearer token. */
export interface Principal {
  kind: TokenKind;
  userId: string;
  tokenId: string;
  scope: string | null;
  clientId: string | null;
}

export interface IssuedToken {
  token: string;
  id: string;
  expiresAt: number | null;
  createdAt: number;
}

/**
 * One-shot hashing (Node >= 20.12) costs half of a Hash object; every authenticated request hashes
 * its token, so the difference showed in the message create profile. Older Node 20s fall back.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Length of the time-ordered id that generated tokens start with, before a '.' (see hashToken). */
const ORDERED_ID_LENGTH = 24;
const ORDERED_ID = /^[0-9a-f]{24}$/;

/**
 * The key a token is stored and looked up under; the token itself is never stored. Tokens are
 * stored only as SHA-256, and a lookup by hash leaks nothing about the token through timing.
 *
 * Tokens from generateToken start with a time-ordered id and a dot; their key is that id followed
 * by 40 hex digits (160 bits) of the token's SHA-256, 64 characters like a plain hash. Keys of new
 * tokens then sort by creation time, so inserts land at the end of the key index: with plain hashes
 * each insert rewrote a random leaf page of an ever larger index (about ten times slower on SQLite,
 * the largest share of a client_credentials grant). Any other value (an admin token from the
 * environment, a code, a session cookie, a token issued before) keys as its plain SHA-256. The key
 * is a function of the token alone, so issuing and looking up always agree.
 */
export function hashToken(token: string): string {
  const hash = sha256Hex(token);
  const id = token.slice(0, ORDERED_ID_LENGTH);
  if (token.length > ORDERED_ID_LENGTH + 1 && token[ORDERED_ID_LENGTH] === '.' && ORDERED_ID.test(id)) {
    return id + hash.slice(0, 64 - ORDERED_ID_LENGTH);
  }
  return hash;
}

/**
 * Random bytes drawn from the CSPRNG in 4 KB blocks and handed out once each: one call per 128 tokens
 * instead of one per token (a call per token was ~8% of a client_credentials grant's CPU). The token
 * string is a copy, so refilling the block later changes no issued token.
 */
const RANDOM_BLOCK_SIZE = 4096;
const randomBlock = Buffer.alloc(RANDOM_BLOCK_SIZE);
let randomOffset = RANDOM_BLOCK_SIZE;
function freshRandomBytes(size: number): Buffer {
  if (randomOffset + size > RANDOM_BLOCK_SIZE) {
    randomFillSync(randomBlock);
    randomOffset = 0;
  }
  const bytes = randomBlock.subarray(randomOffset, randomOffset + size);
  randomOffset += size;
  return bytes;
}

/** A bearer token: a time-ordered id, a dot, and 32 random bytes (base64url); 68 characters. */
export function generateToken(): string {
  return `${newObjectId()}.${freshRandomBytes(32).toString('base64url')}`;
}

/**
 * The name under which the admin token of PARLEY_ADMIN_TOKEN is stored. That token lives only while the
 * variable is set: a row of this name is accepted only by a process that installed the same token
 * from its own environment at start-up (installEnvironmentAdminToken), so starting without the variable,
 * or with another value, retires the old one. The name cannot be created or revoked by hand.
 */
export const ENV_ADMIN_TOKEN_NAME = 'PARLEY_ADMIN_TOKEN';

/** An active admin token already has this name. */
export class AdminTokenNameTakenError extends Error {
  constructor(name: string) {
    super(`An admin token named "${name}" already exists; revoke it first or pick another name.`);
    this.name = 'AdminTokenNameTakenError';
  }
}

/** A request about the environment's admin token that only the environment can make; says what to do instead. */
export class EnvironmentAdminTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvironmentAdminTokenError';
  }
}

/**
 * Admin tokens that resolved recently, by hash: the admin API's hot paths (message create) would
 * otherwise spend a query per request on the same token. Only positive answers for admin tokens are
 * kept, for ADMIN_TOKEN_CACHE_MS. The cache belongs to the database handle, so a revocation made by
 * any TokensService of this process clears it at once. A revocation made through the API is also
 * broadcast as an `adminToken.revoked` notice, so every other instance the bus reaches clears its
 * cache at once too. The bound, whatever happens to the bus (Redis down, a message lost, a
 * revocation by the CLI, which has no bus): a revoked admin token is refused everywhere at most
 * ADMIN_TOKEN_CACHE_MS (2 s, real time) after the revocation commits, plus the duration of one read
 * of the token that was in flight at the commit. Expiry is checked on every request. User and bot
 * tokens are never cached.
 */
export const ADMIN_TOKEN_CACHE_MS = 2000;
/** An admin token's last use is written at most this often (its first use in a minute writes it). */
export const ADMIN_LAST_USED_GRANULARITY_MS = 60_000;
const ADMIN_TOKEN_CACHE_SIZE = 1000;

interface CachedPrincipal {
  principal: Principal;
  expiresAt: number | null;
  cachedAt: number;
}

/**
 * Per database handle: the cached principals, the lookups in flight that renew an expired one, and a
 * count of admin revocations made here. Under load the cache entry of a busy admin token expires for
 * every request at once; they then share one lookup instead of each sending its own (about fifty at
 * a time at the bench's 50 connections, every ADMIN_TOKEN_CACHE_MS). A lookup that started before a
 * revocation made here neither fills the cache nor answers a request that came after it.
 */
interface AdminCache {
  principals: Map<string, CachedPrincipal>;
  lookups: Map<string, Promise<TokenRow | undefined>>;
  revocations: number;
  /** The hash of the PARLEY_ADMIN_TOKEN this process started with, or null when it started without one. */
  environmentTokenHash: string | null;
  /** When this process last wrote each admin token's last use, so concurrent requests write it once. */
  lastUseWritten: Map<string, number>;
}

const adminCaches = new WeakMap<Executor, AdminCache>();

function adminCacheOf(db: Executor): AdminCache {
  let cache = adminCaches.get(db);
  if (!cache) {
    cache = { principals: new Map(), lookups: new Map(), revocations: 0, environmentTokenHash: null, lastUseWritten: new Map() };
    adminCaches.set(db, cache);
  }
  return cache;
}

export function adminUserIdFor(name: string): string {
  return `admin-${name}`;
}

interface TokensDeps {
  db: Executor;
  clock: Clock;
  /**
   * The server's notices: revocations are broadcast to the other instances and heard from them.
   * Absent in the CLI, whose revocations reach running servers within ADMIN_TOKEN_CACHE_MS.
   */
  notices?: Pick<Notices, 'publish' | 'on'>;
}

type TokensStore = ReturnType<typeof createTokensStore>;

interface IssueInput {
  kind: TokenKind;
  userId: string;
  name?: string | null;
  clientId?: string | null;
  scope?: string | null;
  expiresInMs?: number | null;
  token?: string;
  /** The sign-in grant (authorization code id) the token comes from, so a replay can revoke it. */
  grantId?: string | null;
}

/** The admin principal cache of this database handle (see AdminCache), with the operations on it. */
function createAdminPrincipalCache(deps: TokensDeps, store: TokensStore) {
  const adminCache = adminCacheOf(deps.db);

  function cachedPrincipal(tokenHash: string): Principal | undefined {
    const cached = adminCache.principals.get(tokenHash);
    if (!cached) return undefined;
    // Real time, not the adjustable clock: the cache's age is about this process, not the domain.
    const fresh = Date.now() - cached.cachedAt < ADMIN_TOKEN_CACHE_MS;
    const live = cached.expiresAt === null || cached.expiresAt > deps.clock.now();
    if (fresh && live) return cached.principal;
    adminCache.principals.delete(tokenHash);
    return undefined;
  }

  /**
   * The row of a token. The lookup that renews an expired admin entry is shared by the requests that
   * miss it meanwhile (see AdminCache); they may see the token as it was up to ADMIN_TOKEN_CACHE_MS
   * ago anyway. Other tokens are never cached, so each request reads its own: a request that comes
   * after a user token's revocation must not share a read begun before it.
   */
  function lookUp(tokenHash: string, renewsAdmin: boolean): Promise<TokenRow | undefined> {
    const renewal = adminCache.lookups.get(tokenHash);
    if (renewal) return renewal;
    if (!renewsAdmin) return store.findByHash(tokenHash);
    const lookup = store.findByHash(tokenHash).finally(() => {
      if (adminCache.lookups.get(tokenHash) === lookup) adminCache.lookups.delete(tokenHash);
    });
    adminCache.lookups.set(tokenHash, lookup);
    return lookup;
  }

  /** A stored environment token counts only in the process that installed that very token. */
  function isRetiredEnvironmentToken(row: TokenRow, tokenHash: string): boolean {
    return row.kind === 'admin' && row.name === ENV_ADMIN_TOKEN_NAME && tokenHash !== adminCache.environmentTokenHash;
  }

  /** Forgets every cached admin principal and every lookup in flight (before and after a revocation commits). */
  function forgetAdmins(): void {
    adminCache.revocations += 1;
    adminCache.principals.clear();
    adminCache.lookups.clear();
  }

  /**
   * Records that an admin token authenticated a request, at most once a minute per token: cached
   * answers skip this, and a cache entry is renewed every ADMIN_TOKEN_CACHE_MS while in use. Not
   * awaited: the time is informative, and a write that fails is made again a minute later.
   */
  function noteAdminUse(row: TokenRow): void {
    const now = deps.clock.now();
    const last = Math.max(row.last_used_at ?? 0, adminCache.lastUseWritten.get(row.token_hash) ?? 0);
    if (now - last < ADMIN_LAST_USED_GRANULARITY_MS) return;
    if (adminCache.lastUseWritten.size >= ADMIN_TOKEN_CACHE_SIZE) adminCache.lastUseWritten.clear();
    adminCache.lastUseWritten.set(row.token_hash, now);
    store.touchLastUsed(row.token_hash, now).catch(() => undefined);
  }

  return { state: adminCache, cachedPrincipal, lookUp, isRetiredEnvironmentToken, forgetAdmins, noteAdminUse };
}

type AdminPrincipalCache = ReturnType<typeof createAdminPrincipalCache>;

/** Creating, listing and revoking admin tokens, and installing the environment's one. */
function createAdminTokenOperations(deps: TokensDeps, store: TokensStore, cache: AdminPrincipalCache, issue: (input: IssueInput) => Promise<IssuedToken>) {
  async function ensureAdminUser(name: string): Promise<string> {
    const userId = adminUserIdFor(name);
    // The user an admin token acts as: made with the token, kept if it exists.
    await ensureAccountUser(deps.db, { id: userId, kind: 'admin', displayName: `Admin ${name}`, now: deps.clock.now() });
    return userId;
  }

  /** Refuses to revoke the environment's token, by name or by id: it would be back at the next start. */
  async function refuseEnvironmentTarget(idOrName: string): Promise<void> {
    const name = idOrName === ENV_ADMIN_TOKEN_NAME ? idOrName : (await store.listByKind('admin')).find((token) => token.id === idOrName)?.name;
    if (name === ENV_ADMIN_TOKEN_NAME) {
      throw new EnvironmentAdminTokenError(
        `${ENV_ADMIN_TOKEN_NAME} comes from the environment and cannot be revoked here: unset PARLEY_ADMIN_TOKEN (or give it a new value) and restart every instance; the old value stops working then`,
      );
    }
  }

  return {
    /** A new admin token, answered once; `expiresInMs` absent: it never expires. */
    async createAdminToken(name: string, options: { expiresInMs?: number } = {}): Promise<IssuedToken & { userId: string }> {
      if (name === ENV_ADMIN_TOKEN_NAME) {
        throw new EnvironmentAdminTokenError(`the name ${ENV_ADMIN_TOKEN_NAME} is kept for the token of the PARLEY_ADMIN_TOKEN variable: pick another name`);
      }
      if (await store.findActiveByName('admin', name)) throw new AdminTokenNameTakenError(name);
      const userId = await ensureAdminUser(name);
      return { ...(await issue({ kind: 'admin', userId, name, expiresInMs: options.expiresInMs ?? null })), userId };
    },

    async listAdminTokens(): Promise<TokenRow[]> {
      return store.listByKind('admin');
    },

    /**
     * Revokes an admin token by id or name; answers how many it revoked. Forgotten by this process's
     * cache at once, and by every instance the notices reach (see ADMIN_TOKEN_CACHE_MS for the bound).
     */
    async revokeAdminToken(idOrName: string): Promise<number> {
      await refuseEnvironmentTarget(idOrName);
      cache.forgetAdmins();
      let tokenIds: string[] = [];
      try {
        tokenIds = await store.revoke('admin', idOrName, deps.clock.now());
      } finally {
        // Again once it committed: a request between the first and the commit may have cached it.
        cache.forgetAdmins();
      }
      // After the commit, so an instance that hears it and reads the token again finds it revoked.
      if (tokenIds.length > 0) deps.notices?.publish({ type: 'adminToken.revoked', tokenIds });
      return tokenIds.length;
    },

    /**
     * PARLEY_ADMIN_TOKEN replaces whatever token that name held at the previous start, and from now on
     * this process (this database handle) accepts it; a process that never calls this accepts none.
     */
    async installEnvironmentAdminToken(token: string): Promise<void> {
      cache.forgetAdmins();
      cache.state.environmentTokenHash = hashToken(token);
      const userId = await ensureAdminUser('env');
      const current = await store.findByHash(hashToken(token));
      // Several instances start with the same variable: the first one installs it, the rest see it.
      if (current && current.revoked_at === null && current.name === ENV_ADMIN_TOKEN_NAME) return;
      await runTransaction(deps.db, async (trx) => {
        const scoped = createTokensStore(trx);
        await scoped.deleteByName('admin', ENV_ADMIN_TOKEN_NAME);
        const now = deps.clock.now();
        await scoped.insertIfAbsent({
          token_hash: hashToken(token),
          id: newObjectId(now),
          kind: 'admin',
          user_id: userId,
          name: ENV_ADMIN_TOKEN_NAME,
          client_id: null,
          scope: null,
          expires_at: null,
          revoked_at: null,
          created_at: now,
          grant_id: null,
          last_used_at: null,
        });
      });
    },
  };
}

export function createTokensService(deps: TokensDeps) {
  const store = createTokensStore(deps.db);
  const cache = createAdminPrincipalCache(deps, store);
  const adminCache = cache.state;
  // Another instance revoked an admin token: forget every cached one (revocations are rare).
  deps.notices?.on('adminToken.revoked', () => cache.forgetAdmins());

  async function issue(input: IssueInput): Promise<IssuedToken> {
    const now = deps.clock.now();
    const token = input.token ?? generateToken();
    const row: TokenRow = {
      token_hash: hashToken(token),
      id: newObjectId(now),
      kind: input.kind,
      user_id: input.userId,
      name: input.name ?? null,
      client_id: input.clientId ?? null,
      scope: input.scope ?? null,
      expires_at: input.expiresInMs ? now + input.expiresInMs : null,
      revoked_at: null,
      created_at: now,
      grant_id: input.grantId ?? null,
      last_used_at: null,
    };
    await store.insert(row);
    return { token, id: row.id, expiresAt: row.expires_at, createdAt: now };
  }

  return {
    issue,

    /**
     * The principal of an admin token resolved within the last ADMIN_TOKEN_CACHE_MS, without a promise:
     * undefined when the cache cannot answer (then call resolve).
     */
    resolveCached(token: string): Principal | undefined {
      return cache.cachedPrincipal(hashToken(token));
    },

    /** Answers the principal of a live token, or null for unknown, revoked and expired ones. */
    async resolve(token: string): Promise<Principal | null> {
      const tokenHash = hashToken(token);
      const renewsAdmin = adminCache.principals.has(tokenHash);
      const cached = cache.cachedPrincipal(tokenHash);
      if (cached) return cached;
      const revocations = adminCache.revocations;
      const row = await cache.lookUp(tokenHash, renewsAdmin);
      if (!row || row.revoked_at !== null || cache.isRetiredEnvironmentToken(row, tokenHash)) return null;
      if (row.expires_at !== null && row.expires_at <= deps.clock.now()) return null;
      const principal: Principal = { kind: row.kind as TokenKind, userId: row.user_id, tokenId: row.id, scope: row.scope, clientId: row.client_id };
      if (principal.kind === 'admin') cache.noteAdminUse(row);
      if (principal.kind === 'admin' && adminCache.revocations === revocations) {
        if (adminCache.principals.size >= ADMIN_TOKEN_CACHE_SIZE) adminCache.principals.clear();
        adminCache.principals.set(tokenHash, { principal, expiresAt: row.expires_at, cachedAt: Date.now() });
      }
      return principal;
    },

    ...createAdminTokenOperations(deps, store, cache, issue),
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
