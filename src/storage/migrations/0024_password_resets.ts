import type { Kysely } from 'kysely';

/**
 * Password-reset links (modules/identity/password-resets.ts): one live link per user, the token stored
 * only as its SHA-256, valid until `expires_at` and deleted by the one use that consumes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('user_id', 'varchar(64)', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('password_resets_expiry').on('password_resets').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('password_resets').execute();
}
