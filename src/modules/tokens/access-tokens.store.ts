import type { Executor } from '../../storage/database.js';
import type { TokensTable } from '../../storage/schema.js';

/*
 * The access tokens sign-in issues (user and bot tokens, from the token endpoint), written in the
 * transaction of the identity module that passes its `db`: grants, sign-outs under the user row's
 * lock, client deletes. Plain functions, not a store object: the token endpoint's group commit calls
 * them per batch.
 */

/** An access token row as the token endpoint writes it. */
export type AccessTokenRow = TokensTable;

/** The token kinds a person or a bot signs in with; admin tokens are managed apart (tokens.service.ts). */
export const END_USER_TOKEN_KINDS: readonly string[] = ['user', 'bot'];

export async function insertAccessTokenRow(db: Executor, row: AccessTokenRow): Promise<void> {
  await db.insertInto('tokens').values(row).execute();
}

/** One multi-row INSERT; nothing for no rows. */
export async function insertAccessTokenRows(db: Executor, rows: readonly AccessTokenRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('tokens')
    .values([...rows])
    .execute();
}

/** Revokes one user or bot token of the user; answers whether it was live. */
export async function revokeEndUserToken(db: Executor, userId: string, tokenId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('tokens')
    .set({ revoked_at: now })
    .where('id', '=', tokenId)
    .where('user_id', '=', userId)
    .where('kind', 'in', END_USER_TOKEN_KINDS)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Revokes every live, unexpired user and bot token of the user; answers how many. */
export async function revokeEndUserTokensOfUser(db: Executor, userId: string, now: number): Promise<number> {
  const result = await db
    .updateTable('tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('kind', 'in', END_USER_TOKEN_KINDS)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Revokes the live tokens issued from one grant (an authorization code's id). */
export async function revokeAccessTokensOfGrant(db: Executor, grantId: string, now: number): Promise<void> {
  await db.updateTable('tokens').set({ revoked_at: now }).where('grant_id', '=', grantId).where('revoked_at', 'is', null).execute();
}

/** Revokes the live tokens issued to one client. */
export async function revokeAccessTokensOfClient(db: Executor, clientId: string, now: number): Promise<void> {
  await db.updateTable('tokens').set({ revoked_at: now }).where('client_id', '=', clientId).where('revoked_at', 'is', null).execute();
}

/** Deletes tokens the token endpoint issued (they carry their client) that expired before `expiredBefore`; admin and minted ones stay. */
export async function deleteExpiredClientTokens(db: Executor, expiredBefore: number): Promise<void> {
  await db.deleteFrom('tokens').where('client_id', 'is not', null).where('expires_at', '<', expiredBefore).execute();
}
