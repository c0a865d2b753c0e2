import type { Kysely } from 'kysely';

/**
 * Erasures under way (modules/privacy): an erasure's first transaction scrubs the profile, ends sign-in,
 * writes its audit entry and this row; the batches that follow remove the rest, and the last one deletes
 * the user with this row. An instance that starts finds the rows a crash left and finishes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('erasures')
    .addColumn('user_id', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('messages_mode', 'varchar(16)', (col) => col.notNull())
    .addColumn('requested_at', 'bigint', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('erasures').execute();
}
