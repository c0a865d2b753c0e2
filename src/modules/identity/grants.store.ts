import type { Dialect, Executor } from '../../storage/database.js';
import type { AuthorizationCodesTable, RefreshTokensTable } from '../../storage/schema.js';
import {
  type AccessTokenRow,
  deleteExpiredClientTokens,
  insertAccessTokenRow,
  insertAccessTokenRows,
  revokeAccessTokensOfGrant,
} from '../tokens/access-tokens.service.js';

export type CodeRow = AuthorizationCodesTable;
export type RefreshRow = RefreshTokensTable;
/** An access token the token endpoint issues, in the tokens table every surface authenticates with. */
export type { AccessTokenRow } from '../tokens/access-tokens.service.js';

/**
 * Authorization codes, refresh tokens, and revoking what one grant produced. Access tokens belong to
 * the tokens module, which writes them in this store's transaction.
 */
export function createGrantsStore(db: Executor) {
  return {
    /**
     * Holds the user row shared until the transaction ends (PostgreSQL; SQLite runs one write
     * transaction at a time). A revocation locks it exclusively first (credentials.store.ts), so
     * tokens written here are either committed before it reads them or refused after it.
     */
    async shareLockUser(userId: string, dialect: Dialect): Promise<void> {
      if (dialect === 'postgres') await db.selectFrom('users').select('id').where('id', '=', userId).forShare().execute();
    },

    async insertCode(row: CodeRow): Promise<void> {
      await db.insertInto('authorization_codes').values(row).execute();
    },

    async findCode(codeHash: string): Promise<CodeRow | undefined> {
      return db.selectFrom('authorization_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
    },

    /** Single use: exactly one caller sees true, however many race for the same code. */
    async consumeCode(codeHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('authorization_codes')
        .set({ used_at: now })
        .where('code_hash', '=', codeHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    insertAccessToken(row: AccessTokenRow): Promise<void> {
      return insertAccessTokenRow(db, row);
    },

    /** One multi-row INSERT of access tokens (the token endpoint's group commit of bot tokens). */
    insertAccessTokens(rows: readonly AccessTokenRow[]): Promise<void> {
      return insertAccessTokenRows(db, rows);
    },

    async insertRefresh(row: RefreshRow): Promise<void> {
      await db.insertInto('refresh_tokens').values(row).execute();
    },

    async findRefresh(tokenHash: string): Promise<RefreshRow | undefined> {
      return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },

    /** Rotation: exactly one caller sees true; a later use is a reuse (grant-refresh-token.ts decides which). */
    async markRefreshUsed(tokenHash: string, now: number): Promise<boolean> {
      const result = await db
        .updateTable('refresh_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Whether a refresh token that replaced this one (by its id) has been used in turn. */
    async hasUsedSuccessor(tokenId: string): Promise<boolean> {
      const row = await db
        .selectFrom('refresh_tokens')
        .select('id')
        .where('parent_id', '=', tokenId)
        .where('used_at', 'is not', null)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Revokes every access and refresh token issued from one authorization code. */
    async revokeGrant(grantId: string, now: number): Promise<void> {
      await db.updateTable('refresh_tokens').set({ revoked_at: now }).where('family_id', '=', grantId).where('revoked_at', 'is', null).execute();
      await revokeAccessTokensOfGrant(db, grantId, now);
    },

    /** Housekeeping: rows past any use. Used codes are kept a day longer to recognise a late replay. */
    async deleteExpired(now: number): Promise<void> {
      const day = 24 * 3600 * 1000;
      await db
        .deleteFrom('authorization_codes')
        .where('expires_at', '<', now - day)
        .execute();
      await db.deleteFrom('refresh_tokens').where('expires_at', '<', now).execute();
      // The token endpoint's access tokens, a day past expiry; admin and minted ones stay.
      await deleteExpiredClientTokens(db, now - day);
    },
  };
}

export type GrantsStore = ReturnType<typeof createGrantsStore>;
