import type { Executor } from '../../storage/database.js';
import type { BotsTable, OAuthClientsTable } from '../../storage/schema.js';
import { revokeAccessTokensOfClient } from '../tokens/access-tokens.service.js';

export type ClientRow = OAuthClientsTable;
export type BotRow = BotsTable;

/** A client with the ban flag of its bot user (null when it has none), read in one query. */
export type ClientWithBot = ClientRow & { bot_is_global_ban: number | null };

export function createClientsStore(db: Executor) {
  return {
    async insertClient(row: ClientRow): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },

    /** Writes the client, or replaces every field of the one with its id but its creation time. */
    async upsertClient(row: ClientRow): Promise<void> {
      const { client_id: _id, created_at: _created, ...changes } = row;
      await db
        .insertInto('oauth_clients')
        .values(row)
        .onConflict((oc) => oc.column('client_id').doUpdateSet(changes))
        .execute();
    },

    /** The client after the change, or undefined when there is no such client. */
    async updateClient(
      clientId: string,
      changes: Partial<Pick<ClientRow, 'name' | 'redirect_uris' | 'post_logout_redirect_uris' | 'updated_at'>>,
    ): Promise<ClientRow | undefined> {
      return db.updateTable('oauth_clients').set(changes).where('client_id', '=', clientId).returningAll().executeTakeFirst();
    },

    /** Every bot with its display name, oldest first. */
    async listBots(): Promise<Array<BotRow & { display_name: string | null }>> {
      return db
        .selectFrom('bots')
        .innerJoin('users', 'users.id', 'bots.user_id')
        .selectAll('bots')
        .select('users.display_name')
        .orderBy('bots.created_at')
        .orderBy('bots.user_id')
        .execute();
    },

    async findClient(clientId: string): Promise<ClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
    },

    /** The token endpoint's one read: the client and, for a bot client, whether its bot is banned. */
    async findClientWithBot(clientId: string): Promise<ClientWithBot | undefined> {
      return db
        .selectFrom('oauth_clients')
        .leftJoin('users', 'users.id', 'oauth_clients.bot_user_id')
        .selectAll('oauth_clients')
        .select('users.is_global_ban as bot_is_global_ban')
        .where('oauth_clients.client_id', '=', clientId)
        .executeTakeFirst();
    },

    async listClients(): Promise<ClientRow[]> {
      return db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('client_id').execute();
    },

    /** Deletes the client; its codes, refresh tokens (and bot row) go with it by cascade. */
    async deleteClient(clientId: string): Promise<boolean> {
      const result = await db.deleteFrom('oauth_clients').where('client_id', '=', clientId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The client's access tokens, revoked by the tokens module in this store's transaction. */
    revokeAccessTokensOfClient(clientId: string, now: number): Promise<void> {
      return revokeAccessTokensOfClient(db, clientId, now);
    },

    async insertBot(row: BotRow): Promise<void> {
      await db.insertInto('bots').values(row).execute();
    },

    /** The bot's row after the change, or undefined when there is no such bot. */
    async updateBotWebhook(userId: string, webhookUrl: string | null): Promise<BotRow | undefined> {
      return db.updateTable('bots').set({ webhook_url: webhookUrl }).where('user_id', '=', userId).returningAll().executeTakeFirst();
    },

    async findBotWithClient(userId: string): Promise<(BotRow & { secret_sealed: string | null; is_global_ban: number }) | undefined> {
      return db
        .selectFrom('bots')
        .innerJoin('oauth_clients', 'oauth_clients.client_id', 'bots.client_id')
        .innerJoin('users', 'users.id', 'bots.user_id')
        .selectAll('bots')
        .select(['oauth_clients.secret_sealed', 'users.is_global_ban'])
        .where('bots.user_id', '=', userId)
        .executeTakeFirst();
    },
  };
}

export type ClientsStore = ReturnType<typeof createClientsStore>;
