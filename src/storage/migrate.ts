import { type Kysely, Migrator, type MigrationProvider, type Migration, sql } from 'kysely';
import { DatabaseUnavailableError } from './database.js';
import { migrations } from './migrations/index.js';
import type { Database } from './schema.js';

const provider: MigrationProvider = {
  getMigrations: async (): Promise<Record<string, Migration>> => migrations,
};

/** The database holds migrations this version does not know: a newer Parley wrote it. */
export class DatabaseVersionError extends Error {
  constructor(readonly unknownMigrations: string[]) {
    super(
      `this database was written by a newer Parley (migration ${unknownMigrations.join(', ')} ${unknownMigrations.length === 1 ? 'is' : 'are'} unknown): upgrade Parley`,
    );
    this.name = 'DatabaseVersionError';
  }
}

/** Migrating failed for another reason; the message names the migration when one was running. */
export class MigrationFailedError extends Error {
  constructor(migrationName: string | null, reason: string, options: { cause: unknown }) {
    super(
      `${migrationName === null ? 'migrating the database' : `migration ${migrationName}`} failed (${reason}): fix the cause, then run \`parley migrate\` or start again`,
      options,
    );
    this.name = 'MigrationFailedError';
  }
}

/** Names recorded in Kysely's migration table that this version does not ship. */
async function unknownMigrationNames(db: Kysely<Database>): Promise<string[]> {
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return rows.rows
      .map((row) => row.name)
      .filter((name) => !(name in migrations))
      .sort();
  } catch {
    // No migration table (or no access to it): nothing was recorded by any version.
    return [];
  }
}

/**
 * Applies pending migrations and answers their names. A connection failure keeps its own message (it
 * says where and what to check); a database from a newer version says to upgrade rather than Kysely's
 * "corrupted migrations".
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    if (error instanceof DatabaseUnavailableError) throw error;
    const unknown = await unknownMigrationNames(db);
    if (unknown.length > 0) throw new DatabaseVersionError(unknown);
    const failed = results?.find((result) => result.status === 'Error');
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
    throw new MigrationFailedError(failed?.migrationName ?? null, reason, { cause: error });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
