import { type Kysely, sql } from 'kysely';

/**
 * Sign-in (OpenID Connect): OAuth clients, authorization codes, refresh tokens, login sessions, the
 * login throttle, avatars and bots. Every credential is stored as a SHA-256 hash except client
 * secrets, which sign HS256 ID tokens and so are kept encrypted under the server key.
 * Access tokens stay in `tokens`; grant_id ties them to the authorization code (and refresh family)
 * they came from, so a replayed code or refresh token revokes everything issued from it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createOauthClientsTable(db);
  await createBotsTable(db);
  await createAuthorizationCodesTable(db);
  await createRefreshTokensTable(db);
  await createLoginSessionsTable(db);
  await createLoginFailuresTable(db);
  await createAvatarsTable(db);
  await addTokenGrantColumn(db);
}

async function createOauthClientsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    // AES-256-GCM under the server key; null for public clients.
    .addColumn('secret_sealed', 'text')
    .addColumn('redirect_uris', 'text', (col) => col.notNull())
    .addColumn('grant_types', 'text', (col) => col.notNull())
    .addColumn('is_public', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('id_token_alg', 'varchar(8)', (col) => col.notNull())
    .addColumn('bot_user_id', 'varchar(64)', (col) => col.references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('oauth_clients_bot').on('oauth_clients').column('bot_user_id').execute();
}

async function createBotsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bots')
    .addColumn('user_id', 'varchar(64)', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'varchar(64)', (col) => col.notNull().references('oauth_clients.client_id').onDelete('cascade'))
    .addColumn('webhook_url', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
}

async function createAuthorizationCodesTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('authorization_codes')
    .addColumn('code_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('id', 'varchar(32)', (col) => col.notNull().unique())
    .addColumn('client_id', 'varchar(64)', (col) => col.notNull().references('oauth_clients.client_id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (col) => col.notNull())
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text')
    .addColumn('code_challenge', 'varchar(128)')
    .addColumn('auth_time', 'bigint', (col) => col.notNull())
    .addColumn('include_auth_time', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('authorization_codes_expiry').on('authorization_codes').column('expires_at').execute();
}

async function createRefreshTokensTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('id', 'varchar(32)', (col) => col.notNull().unique())
    // The id of the authorization code the family grew from; also tokens.grant_id.
    .addColumn('family_id', 'varchar(32)', (col) => col.notNull())
    .addColumn('client_id', 'varchar(64)', (col) => col.notNull().references('oauth_clients.client_id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('scope', 'text', (col) => col.notNull())
    .addColumn('auth_time', 'bigint', (col) => col.notNull())
    .addColumn('include_auth_time', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('refresh_tokens_family').on('refresh_tokens').column('family_id').execute();
  await db.schema.createIndex('refresh_tokens_expiry').on('refresh_tokens').column('expires_at').execute();
}

async function createLoginSessionsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('login_sessions')
    .addColumn('id_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('id', 'varchar(32)', (col) => col.notNull().unique())
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('auth_time', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('login_sessions_user').on('login_sessions').column('user_id').execute();
  await db.schema.createIndex('login_sessions_expiry').on('login_sessions').column('expires_at').execute();
}

async function createLoginFailuresTable(db: Kysely<unknown>): Promise<void> {
  // One row per failed sign-in, per throttle key ("account:<name>", "address:<ip>"); pruned after the window.
  await db.schema
    .createTable('login_failures')
    .addColumn('throttle_key', 'varchar(200)', (col) => col.notNull())
    .addColumn('failed_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('login_failures_key').on('login_failures').columns(['throttle_key', 'failed_at']).execute();
  await db.schema.createIndex('login_failures_time').on('login_failures').column('failed_at').execute();
}

async function createAvatarsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('avatars')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'varchar(32)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('avatars_user').on('avatars').column('user_id').execute();
}

async function addTokenGrantColumn(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('grant_id', 'varchar(32)').execute();
  await db.schema.createIndex('tokens_grant').on('tokens').column('grant_id').where(sql<boolean>`grant_id is not null`).execute();
  await db.schema.createIndex('tokens_client').on('tokens').column('client_id').where(sql<boolean>`client_id is not null`).execute();
}
