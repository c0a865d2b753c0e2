import cookie from '@fastify/cookie';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import { AppError } from '../../http/errors.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Executor } from '../../storage/database.js';
import type { TokensService } from '../tokens/tokens.service.js';
import { createUsersStore } from '../users/users.store.js';
import type { WebhookTargets } from '../webhooks/webhook-targets.js';
import { createAuthorizeService } from './authorize/authorize.service.js';
import { createAvatarsService } from './avatars.service.js';
import { createClientsService } from './clients.service.js';
import { createCsrf } from './csrf.js';
import { createGrantsStore } from './grants.store.js';
import { registerIdentityAdminRoutes } from '../../surfaces/admin/identity.routes.js';
import { createLoginService } from './login.service.js';
import { registerOAuthApiRoutes, registerOAuthPublicRoutes } from '../../surfaces/signin/oauth.routes.js';
import { checkServerKey, createSealer, loadServerKeyMaterial } from './server-key.js';
import { createSessionsStore } from './sessions.store.js';
import { createLoginSessions } from './sessions.js';
import { loadOrCreateRsaKey } from './signing-keys.js';
import { rawQueryOf, registerSignInPages } from '../../surfaces/signin/pages.routes.js';
import { THROTTLE_WINDOW_MS, createLoginThrottle } from './throttle.js';
import { createTokenIssuer } from './token/issue-tokens.js';
import { createTokenService } from './token/token.service.js';

const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The identity module, wired: OpenID Connect sign-in (SPEC.md section B), OAuth clients, bots and
 * avatars. app.ts registers `signInRoutes` at the root and `registerAdminRoutes` inside /api/v2.
 */
export async function createIdentity(deps: {
  db: Executor;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'oidcIssuer' | 'dataDir' | 'secretKey'>;
  blobs: BlobStore;
  tokens: TokensService;
  /** The deployment's network id: userinfo's `nid` / `networkId` (the tray's records carry the same). */
  networkId: string;
  /** Where a bot's webhook URL may point (checked when a bot is created or its webhook moved). */
  webhookTargets: WebhookTargets;
  onBackgroundError?: (error: unknown) => void;
}) {
  const { db, clock, config } = deps;
  const sealer = createSealer(loadServerKeyMaterial({ secretKey: config.secretKey, dataDir: config.dataDir }));
  await checkServerKey(db, sealer);
  const rsa = await loadOrCreateRsaKey(db, sealer);
  const { networkId } = deps;

  const users = createUsersStore(db);
  const findUser = (userId: string) => users.findById(userId);
  const grants = createGrantsStore(db);
  const clients = createClientsService({ db, clock, sealer, webhookTargets: deps.webhookTargets });
  const sessions = createLoginSessions({ db, clock });
  const throttle = createLoginThrottle({ db, clock });
  const login = createLoginService({ db, clock, throttle });
  const avatars = createAvatarsService({ db, clock, blobs: deps.blobs });

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

  const authorize = createAuthorizeService({ db, clock, issuer: config.oidcIssuer, clients, afterWrite: sweepIfDue });
  const issuer = createTokenIssuer({ db, clock, issuer: config.oidcIssuer, clients, rsa });
  const token = createTokenService({ clock, clients, grants, issuer, findUser });
  const basePath = new URL(config.publicUrl).pathname.replace(/\/+$/, '');

  return {
    clients,
    /** For the orphan-blob sweep: which avatar blobs a row still points at. */
    avatarBlobReferences: (keys: readonly string[]) => avatars.referencedBlobKeys(keys),
    /** For the webhooks module: a bot's webhook URL and signing secret. */
    resolveBotWebhook: (botUserId: string) => clients.resolveBotWebhook(botUserId),

    registerAdminRoutes(admin: TypedApp): void {
      registerIdentityAdminRoutes(admin, { clients, avatars, tokens: deps.tokens, users });
    },

    /** Register with `app.register(identity.signInRoutes)`: the root-level sign-in surface. */
    async signInRoutes(scope: TypedApp): Promise<void> {
      await scope.register(cookie);
      // OAuth bodies are plain RFC forms (no nested keys): routes read the raw text themselves.
      scope.removeContentTypeParser('application/x-www-form-urlencoded');
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
        done(null, body);
      });
      // Those raw texts skip the app's NUL check, and a NUL in a client id, a nonce or a username
      // reached PostgreSQL, which refuses it (500). No OAuth value holds one: refuse it up front, as
      // each surface answers a bad request (an OAuth error, or a page).
      scope.addHook('preValidation', async (request) => {
        if (holdsNul(rawQueryOf(request)) || (typeof request.body === 'string' && holdsNul(request.body))) {
          throw new AppError('badRequest', 'The request contains a NUL character.');
        }
      });
      registerOAuthPublicRoutes(scope, { publicUrl: config.publicUrl, issuer: config.oidcIssuer, rsa, avatars, tokens: deps.tokens });
      await scope.register(async (api) => {
        registerOAuthApiRoutes(api, { token, tokens: deps.tokens, findUser, networkId, publicUrl: config.publicUrl });
      });
      await scope.register(async (pages) => {
        registerSignInPages(pages, {
          basePath,
          issuer: config.oidcIssuer,
          secureCookies: config.publicUrl.startsWith('https:'),
          authorize,
          sessions,
          login,
          csrf: createCsrf(sealer),
          clients,
          findUser,
        });
      });
    },
  };
}

/** A NUL written raw or percent-encoded in a query string or form. */
function holdsNul(text: string): boolean {
  return text.includes('\u0000') || /%00/.test(text);
}

export type Identity = Awaited<ReturnType<typeof createIdentity>>;
