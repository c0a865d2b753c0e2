import type { Kysely } from 'kysely';

/**
 * The audit trail: one row per administrative action, and one per id it names. Entries are listed
 * newest first, by (at, id), whole or by actor, operation or target.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('actor_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('actor', 'varchar(64)', (col) => col.notNull())
    .addColumn('actor_user_id', 'varchar(64)')
    .addColumn('operation', 'varchar(160)', (col) => col.notNull())
    .addColumn('method', 'varchar(16)', (col) => col.notNull())
    .addColumn('route', 'varchar(160)', (col) => col.notNull())
    .addColumn('targets', 'text', (col) => col.notNull())
    .addColumn('status', 'integer', (col) => col.notNull())
    .addColumn('error_code', 'integer')
    .addColumn('request_id', 'varchar(64)')
    .execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').columns(['at', 'id']).execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_operation').on('audit_log').columns(['operation', 'at', 'id']).execute();
  await db.schema
    .createTable('audit_targets')
    .addColumn('entry_id', 'varchar(32)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(64)', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('audit_targets_pk', ['entry_id', 'target_id'])
    .execute();
  await db.schema.createIndex('audit_targets_target').on('audit_targets').columns(['target_id', 'at', 'entry_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_targets').execute();
  await db.schema.dropTable('audit_log').execute();
}
