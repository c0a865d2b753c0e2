import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Notices } from '../../events/notices.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UserRow } from '../users/users.types.js';
import type { WebhookTargets } from '../webhooks/webhook-targets.js';
import { createAuthorizeService } from './authorize/authorize.service.js';
import { createAvatarsService } from './avatars.service.js';
import { createClientsService } from './clients.service.js';
import { CONSOLE_CLIENT_ID, consoleClientOf } from './console-client.js';
import { createCredentialsService } from './credentials.service.js';
import { createCsrf } from './csrf.js';
import { createGrantsStore } from './grants.store.js';
import { createLoginService } from './login.service.js';
import { createLogoutChecks } from './logout.js';
import { createPasswordResets } from './password-resets.js';
import { checkServerKey, createSealer, loadServerKeyMaterial } from './server-key.js';
import { createSessionsStore } from './sessions.store.js';
import { createLoginSessions } from './sessions.js';
import { loadOrCreateRsaKey } from './signing-keys.js';
import { THROTTLE_WINDOW_MS, createLoginThrottle } from './throttle.js';
import { createTokenIssuer } from './token/issue-tokens.js';
import { createTokenService } from './token/token.service.js';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The identity module, wired: OpenID Connect sign-in (docs/contract.md, Sign-in), OAuth clients, bots and
 * avatars. The sign-in surface and the admin surface serve its routes.
 */
export async function createIdentity(deps: {
  db: Executor;
  /** PostgreSQL locks the user row around token grants and revocations; SQLite needs no lock. */
  dialect: Dialect;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'oidcIssuer' | 'dataDir' | 'secretKey' | 'refreshReuseWindowMs'>;
  blobs: BlobStore;
  tokens: TokensService;
  /** The deployment's network id: userinfo's `nid` / `networkId` (the tray's records carry the same). */
  networkId: string;
  /** Where a bot's webhook URL may point (checked when a bot is created or its webhook moved). */
  webhookTargets: WebhookTargets;
  /**
   * The server's notices: a deleted OAuth client is forgotten by every instance's cache, and a
   * revocation of a user's tokens ends the streams opened with them on every instance.
   */
  notices?: Pick<Notices, 'publish' | 'on'>;
  /** The users module's lookups: sign-in reads the user it signs in. */
  users: {
    findById(userId: string): Promise<UserRow | undefined>;
    findByUsername(username: string): Promise<UserRow | undefined>;
    /** Sets a password as PUT /api/v2/users does: the user is signed out everywhere. */
    upsert(input: { userId: string; password: string }): Promise<unknown>;
  };
  onBackgroundError?: (error: unknown) => void;
}) {
  const { db, clock, config } = deps;
  const sealer = createSealer(loadServerKeyMaterial({ secretKey: config.secretKey, dataDir: config.dataDir }));
  await checkServerKey(db, sealer);
  const rsa = await loadOrCreateRsaKey(db, sealer);
  const { networkId } = deps;

  const findUser = (userId: string) => deps.users.findById(userId);
  const grants = createGrantsStore(db);
  const clients = createClientsService({ db, clock, sealer, webhookTargets: deps.webhookTargets, notices: deps.notices });
  // The admin console signs people in through its own client, registered (or moved to PUBLIC_URL) here.
  await clients.ensureFixedClient(CONSOLE_CLIENT_ID, consoleClientOf(config.publicUrl));
  const sessions = createLoginSessions({ db, clock });
  const throttle = createLoginThrottle({ db, clock });
  const login = createLoginService({ findUserByUsername: (username) => deps.users.findByUsername(username), throttle });
  const avatars = createAvatarsService({ db, clock, blobs: deps.blobs, findUser });

  // Expired codes, sessions and throttle rows are removed now and then, on the back of a sign-in.
  let lastSweep = 0;
  const sweepIfDue = (): void => {
    const now = clock.now();
    if (now - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = now;
    Promise.all([grants.deleteExpired(now), createSessionsStore(db).deleteExpired(now, THROTTLE_WINDOW_MS)]).catch((error: unknown) =>
      deps.onBackgroundError?.(error),
    );
  };

  const authorize = createAuthorizeService({ db, clock, issuer: config.oidcIssuer, clients, findUser, afterWrite: sweepIfDue });
  const issuer = createTokenIssuer({ db, dialect: deps.dialect, clock, issuer: config.oidcIssuer, clients, rsa });
  const token = createTokenService({
    clock,
    clients,
    grants,
    issuer,
    findUser,
    reuseWindowMs: config.refreshReuseWindowMs,
    onGrantRevoked: (userId) => deps.notices?.publish({ type: 'user.tokensRevoked', userId }),
  });
  const basePath = new URL(config.publicUrl).pathname.replace(/\/+$/, '');

  return {
    clients,
    avatars,
    sessions,
    /** The operator's view of a user's sessions, tokens and grants, and their revocation. */
    credentials: createCredentialsService({ db, dialect: deps.dialect, clock, findUser, notices: deps.notices }),
    login,
    /** Password-reset links an admin hands out, and their one use on the reset page. */
    passwordResets: createPasswordResets({ db, clock, findUser, setPassword: (userId, password) => deps.users.upsert({ userId, password }) }),
    authorize,
    token,
    /** RP-Initiated Logout's checks of a logout request (/logout). */
    logout: createLogoutChecks({ issuer: config.oidcIssuer, clients, rsa }),
    rsa,
    csrf: createCsrf(sealer),
    findUser,
    /** The public URL's path: where the sign-in pages' links and cookies live. */
    basePath,
    issuer: config.oidcIssuer,
    publicUrl: config.publicUrl,
    networkId,
    /** For the orphan-blob sweep: which avatar blobs a row still points at. */
    avatarBlobReferences: (keys: readonly string[]) => avatars.referencedBlobKeys(keys),
    /** For the webhooks module: a bot's webhook URL and signing secret. */
    resolveBotWebhook: (botUserId: string) => clients.resolveBotWebhook(botUserId),
  };
}

export type Identity = Awaited<ReturnType<typeof createIdentity>>;
