import type { Kysely } from 'kysely';

/**
 * Revocation: a user's refresh tokens are found by user (a password change, a ban and "sign out
 * everywhere" revoke them all), a login session records when its cookie was last used, and an admin
 * token when it last authenticated a request (both at most once a minute; null until then).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('refresh_tokens_user').on('refresh_tokens').column('user_id').execute();
  await db.schema.alterTable('login_sessions').addColumn('last_seen_at', 'bigint').execute();
  await db.schema.alterTable('tokens').addColumn('last_used_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('last_used_at').execute();
  await db.schema.alterTable('login_sessions').dropColumn('last_seen_at').execute();
  await db.schema.dropIndex('refresh_tokens_user').execute();
}
