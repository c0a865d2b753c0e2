import type { Clock } from '../../clock.js';
import type { Notices } from '../../events/notices.js';
import { notFound } from '../../shared/errors.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import type { UserRow } from '../users/users.types.js';
import { createCredentialsStore, type GrantRow, type RevokedCredentials } from './credentials.store.js';
import type { AccessTokenRow } from './grants.store.js';
import type { SessionRow } from './sessions.store.js';

export type { GrantRow, RevokedCredentials } from './credentials.store.js';

/**
 * Ends everything a user signs in with, inside the caller's transaction, after the caller changed
 * (and so locked) the user row: a password change, a global ban and its lifting call it in the
 * transaction that writes the user. Login sessions, refresh tokens (grants), user and bot access
 * tokens (minted ones included) and codes not yet exchanged stop working on every instance once it
 * commits: none of them is cached. Admin tokens are not touched. Streams opened with the revoked
 * tokens end when the caller, after the commit, publishes `user.tokensRevoked`.
 *
 * `accessTokens: false` leaves the access tokens for later: a ban keeps them, refused with 403 /
 * 400312 ("User is banned from the system.") while it lasts, as the original's clients expect, and
 * the unban revokes them, so it restores none of them.
 *
 * `keepSessionId`: a person who changes their own password from a signed-in page keeps the session
 * they did it from and ends the others. No such page exists; the admin API ends every session.
 */
export function revokeUserCredentials(
  trx: Executor,
  userId: string,
  now: number,
  options: { keepSessionId?: string; accessTokens?: boolean } = {},
): Promise<RevokedCredentials> {
  return createCredentialsStore(trx).revokeAll(userId, now, { keepSessionId: options.keepSessionId ?? null, accessTokens: options.accessTokens ?? true });
}

/** Lists are bounded: the newest this many unless the caller asks for fewer. */
export const DEFAULT_CREDENTIALS_LIMIT = 100;

/**
 * The operator's view of a user's credentials (admin API): live login sessions, access tokens and
 * grants, each listed without its secret and revocable one by one, and "sign out everywhere".
 */
export function createCredentialsService(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  findUser: (userId: string) => Promise<UserRow | undefined>;
  /** Told after a revocation of access tokens commits: every instance ends the streams opened with them. */
  notices?: Pick<Notices, 'publish'>;
}) {
  const store = createCredentialsStore(deps.db);
  const tokensRevoked = (userId: string): void => deps.notices?.publish({ type: 'user.tokensRevoked', userId });

  async function requireUser(userId: string): Promise<void> {
    if (!(await deps.findUser(userId))) throw notFound('User');
  }

  /** Runs a revocation with the user row locked first (see credentials.store.ts lockUser). */
  function withUserLocked<T>(userId: string, work: (scoped: ReturnType<typeof createCredentialsStore>, now: number) => Promise<T>): Promise<T> {
    return runTransaction(deps.db, async (trx) => {
      const scoped = createCredentialsStore(trx);
      await scoped.lockUser(userId, deps.dialect);
      return work(scoped, deps.clock.now());
    });
  }

  return {
    async listSessions(userId: string, limit = DEFAULT_CREDENTIALS_LIMIT): Promise<SessionRow[]> {
      await requireUser(userId);
      return store.listSessions(userId, deps.clock.now(), limit);
    },

    /**
     * Ends one login session of the user; an unknown, ended or expired one is a 404. No access token
     * comes from a session, so every token and stream of the apps it signed in to lives on.
     */
    async revokeSession(userId: string, sessionId: string): Promise<void> {
      await requireUser(userId);
      if (!(await withUserLocked(userId, (scoped, now) => scoped.revokeSession(userId, sessionId, now)))) throw notFound('Session');
    },

    async listTokens(userId: string, limit = DEFAULT_CREDENTIALS_LIMIT): Promise<{ accessTokens: AccessTokenRow[]; grants: GrantRow[] }> {
      await requireUser(userId);
      const now = deps.clock.now();
      const [accessTokens, grants] = await Promise.all([store.listAccessTokens(userId, now, limit), store.listGrants(userId, now, limit)]);
      return { accessTokens, grants };
    },

    /**
     * Revokes one access token (by its tokenId) or one grant (by its grantId: the refresh token and
     * every access token issued from it). Answers which it was; neither is a 404.
     */
    async revokeToken(userId: string, tokenId: string): Promise<'accessToken' | 'grant'> {
      await requireUser(userId);
      const revoked = await withUserLocked(userId, async (scoped, now) => {
        if (await scoped.revokeAccessToken(userId, tokenId, now)) return 'accessToken' as const;
        return (await scoped.revokeGrant(userId, tokenId, now)) ? ('grant' as const) : null;
      });
      if (revoked === null) throw notFound('Token');
      tokensRevoked(userId);
      return revoked;
    },

    /** Sign out everywhere: every session, grant and access token of the user (see revokeUserCredentials). */
    async signOutEverywhere(userId: string): Promise<RevokedCredentials> {
      await requireUser(userId);
      const revoked = await withUserLocked(userId, (scoped, now) => scoped.revokeAll(userId, now, { keepSessionId: null, accessTokens: true }));
      tokensRevoked(userId);
      return revoked;
    },
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
