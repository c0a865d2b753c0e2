import type { Kysely } from 'kysely';

/**
 * Blacklisted words and whitelisted URLs, one table with a kind column. pattern_key is the rule in
 * canonical form (a case-folded word, or host + path), unique per kind: one rule per word or URL.
 * The rules version (settings 'moderation_rules_version') changes with every rule write, so each
 * instance can tell cheaply that its compiled matcher is stale.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('moderation_rules')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('pattern', 'text', (col) => col.notNull())
    .addColumn('pattern_key', 'text', (col) => col.notNull())
    .addColumn('is_match_exact_word', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_enabled', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('moderation_rules_key').unique().on('moderation_rules').columns(['kind', 'pattern_key']).execute();
  await db.schema.createIndex('moderation_rules_kind').on('moderation_rules').columns(['kind', 'id']).execute();
}
