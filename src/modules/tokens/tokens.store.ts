import type { Executor } from '../../storage/database.js';
import type { TokensTable } from '../../storage/schema.js';

export type TokenRow = TokensTable;

export function createTokensStore(db: Executor) {
  return {
    async insert(row: TokenRow): Promise<void> {
      await db.insertInto('tokens').values(row).execute();
    },

    async insertIfAbsent(row: TokenRow): Promise<void> {
      await db
        .insertInto('tokens')
        .values(row)
        .onConflict((oc) => oc.column('token_hash').doNothing())
        .execute();
    },

    async findByHash(tokenHash: string): Promise<TokenRow | undefined> {
      return db.selectFrom('tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    },

    async listByKind(kind: string): Promise<TokenRow[]> {
      return db.selectFrom('tokens').selectAll().where('kind', '=', kind).orderBy('created_at').execute();
    },

    async findActiveByName(kind: string, name: string): Promise<TokenRow | undefined> {
      return db.selectFrom('tokens').selectAll().where('kind', '=', kind).where('name', '=', name).where('revoked_at', 'is', null).executeTakeFirst();
    },

    /** Revokes by id or by name; answers the ids of the tokens it revoked. */
    async revoke(kind: string, idOrName: string, now: number): Promise<string[]> {
      const rows = await db
        .updateTable('tokens')
        .set({ revoked_at: now })
        .where('kind', '=', kind)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    async touchLastUsed(tokenHash: string, now: number): Promise<void> {
      await db.updateTable('tokens').set({ last_used_at: now }).where('token_hash', '=', tokenHash).execute();
    },

    async deleteByName(kind: string, name: string): Promise<void> {
      await db.deleteFrom('tokens').where('kind', '=', kind).where('name', '=', name).execute();
    },
  };
}

export type TokensStore = ReturnType<typeof createTokensStore>;
