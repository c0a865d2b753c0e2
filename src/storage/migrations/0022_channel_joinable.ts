import type { Kysely } from 'kysely';

/**
 * Whether users may join a channel by themselves (the client API's join, channels.policy.ts): 1 when
 * the operator opened it to joining, 0 otherwise, which every existing channel is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('channels')
    .addColumn('joinable', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('channels').dropColumn('joinable').execute();
}
