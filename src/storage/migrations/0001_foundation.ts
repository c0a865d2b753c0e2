import type { Kysely } from 'kysely';

/** Users, tokens, roles, channels and memberships: the foundation's tables. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createUsersTable(db);
  await createUserFlagsTable(db);
  await createTokensTable(db);
  await createRolesTable(db);
  await createChannelsTable(db);
  await createChannelTagsTable(db);
  await createChannelMembersTable(db);
  await createSettingsTable(db);
}

async function createUsersTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('display_name', 'text')
    .addColumn('roles', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('flag_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_global_ban', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('username', 'varchar(128)', (col) => col.unique())
    .addColumn('password_hash', 'text')
    .addColumn('firstname', 'text')
    .addColumn('lastname', 'text')
    .addColumn('email', 'text')
    .addColumn('position', 'text')
    .addColumn('status', 'text')
    .addColumn('extras', 'text', (col) => col.notNull())
    .addColumn('avatar', 'varchar(64)')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('users_flagged').on('users').columns(['flag_count', 'id']).execute();
}

async function createUserFlagsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_flags')
    .addColumn('target_user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('flagger_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('user_flags_pk', ['target_user_id', 'flagger_id'])
    .execute();
}

async function createTokensTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tokens')
    .addColumn('token_hash', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('id', 'varchar(32)', (col) => col.notNull().unique())
    .addColumn('kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(128)')
    .addColumn('client_id', 'varchar(64)')
    .addColumn('scope', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('tokens_user').on('tokens').column('user_id').execute();
}

async function createRolesTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('roles')
    .addColumn('public_id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('permissions', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
}

async function createChannelsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channels')
    .addColumn('id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('type', 'varchar(16)', (col) => col.notNull())
    .addColumn('display_name', 'text')
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('tags', 'text', (col) => col.notNull())
    .addColumn('is_closed', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('mute_until', 'bigint')
    .addColumn('member_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('message_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_segment', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_activity', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('channels_created').on('channels').columns(['created_at', 'id']).execute();
}

async function createChannelTagsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_tags')
    .addColumn('channel_id', 'varchar(64)', (col) => col.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('tag', 'varchar(128)', (col) => col.notNull())
    .addPrimaryKeyConstraint('channel_tags_pk', ['channel_id', 'tag'])
    .execute();
  await db.schema.createIndex('channel_tags_tag').on('channel_tags').columns(['tag', 'channel_id']).execute();
}

async function createChannelMembersTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_members')
    .addColumn('channel_id', 'varchar(64)', (col) => col.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('user_id', 'varchar(64)', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('membership', 'varchar(16)', (col) => col.notNull())
    .addColumn('roles', 'text', (col) => col.notNull())
    .addColumn('mute_until', 'bigint')
    .addColumn('read_to_segment', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_activity', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('channel_members_pk', ['channel_id', 'user_id'])
    .execute();
  await db.schema.createIndex('channel_members_user').on('channel_members').columns(['user_id', 'membership']).execute();
}

async function createSettingsTable(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('key', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .execute();
}
