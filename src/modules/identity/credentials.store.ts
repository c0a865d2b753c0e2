import type { Dialect, Executor } from '../../storage/database.js';
import { END_USER_TOKEN_KINDS, revokeAccessTokensOfGrant, revokeEndUserToken, revokeEndUserTokensOfUser } from '../tokens/access-tokens.service.js';
import type { AccessTokenRow, RefreshRow } from './grants.store.js';
import type { SessionRow } from './sessions.store.js';

/** A grant as listed: the live refresh token of one family. */
export type GrantRow = RefreshRow;

/** What a revocation of everything a user holds ended: live sessions, live access tokens, grants. */
export interface RevokedCredentials {
  sessions: number;
  accessTokens: number;
  grants: number;
}

/**
 * A user's credentials as the operator sees and ends them: login sessions (the browser's sign-in),
 * access tokens (sign-in, client_credentials and minted ones) and grants (a refresh token family
 * with the access tokens issued from it). Lists answer live rows only, newest first.
 */
export function createCredentialsStore(db: Executor) {
  return {
    /**
     * Locks the user row for the rest of the transaction (PostgreSQL; SQLite runs one write
     * transaction at a time). The token endpoint takes the same row shared before it claims a code or
     * a refresh token (grants.store.ts), so a grant either commits wholly before a revocation reads
     * the user's tokens, or starts after it and finds its code or refresh token revoked.
     */
    async lockUser(userId: string, dialect: Dialect): Promise<void> {
      if (dialect === 'postgres') await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    },

    async listSessions(userId: string, now: number, limit: number): Promise<SessionRow[]> {
      return db
        .selectFrom('login_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    async listAccessTokens(userId: string, now: number, limit: number): Promise<AccessTokenRow[]> {
      return db
        .selectFrom('tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .where('kind', 'in', END_USER_TOKEN_KINDS)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    /** The live refresh token of each grant (a family has one, two within the reuse window: the newest counts). */
    async listGrants(userId: string, now: number, limit: number): Promise<GrantRow[]> {
      const rows = await db
        .selectFrom('refresh_tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      const newest = new Map<string, GrantRow>();
      for (const row of rows) if (!newest.has(row.family_id)) newest.set(row.family_id, row);
      return [...newest.values()].slice(0, limit);
    },

    /** Ends one live session of the user; answers whether there was one. */
    async revokeSession(userId: string, sessionId: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('login_sessions')
        .set({ revoked_at: now })
        .where('id', '=', sessionId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Revokes one access token of the user (not an admin token); answers whether it was live. */
    revokeAccessToken(userId: string, tokenId: string, now: number): Promise<boolean> {
      return revokeEndUserToken(db, userId, tokenId, now);
    },

    /** Revokes a grant of the user: every refresh token of the family and the access tokens issued from it. */
    async revokeGrant(userId: string, grantId: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('refresh_tokens')
        .set({ revoked_at: now })
        .where('family_id', '=', grantId)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await revokeAccessTokensOfGrant(db, grantId, now);
      return true;
    },

    /**
     * Ends everything the user signs in with: login sessions (but `keepSessionId`), refresh tokens,
     * user and bot access tokens (unless `accessTokens` is false), and authorization codes not yet
     * exchanged (deleted, so a code issued a moment before cannot mint tokens after). Counts what was
     * still live.
     */
    async revokeAll(userId: string, now: number, options: { keepSessionId: string | null; accessTokens: boolean }): Promise<RevokedCredentials> {
      const { keepSessionId } = options;
      let sessions = db
        .updateTable('login_sessions')
        .set({ revoked_at: now })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now);
      if (keepSessionId !== null) sessions = sessions.where('id', '!=', keepSessionId);
      const endedSessions = await sessions.executeTakeFirst();
      const families = await db
        .updateTable('refresh_tokens')
        .set({ revoked_at: now })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .returning(['family_id', 'used_at', 'expires_at'])
        .execute();
      const accessTokens = options.accessTokens ? await revokeEndUserTokensOfUser(db, userId, now) : 0;
      await db.deleteFrom('authorization_codes').where('user_id', '=', userId).execute();
      const liveGrants = new Set(families.filter((row) => row.used_at === null && row.expires_at > now).map((row) => row.family_id));
      return { sessions: Number(endedSessions.numUpdatedRows), accessTokens, grants: liveGrants.size };
    },
  };
}

export type CredentialsStore = ReturnType<typeof createCredentialsStore>;
