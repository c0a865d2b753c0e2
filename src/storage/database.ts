import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { startBackgroundCheckpointer } from './checkpointer.js';
import { searchFold } from './search-fold.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Storage {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * The raw SQLite connection behind `db` (null on PostgreSQL), for stores whose hot path runs
   * prepared statements directly. Use it only while holding Kysely's connection
   * (`db.connection().execute(...)`), so it never interleaves with a Kysely transaction.
   */
  sqlite: SQLite.Database | null;
  /** PostgreSQL pool use, for metrics; null on SQLite's single connection. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  close(): Promise<void>;
}

// BIGINT (int8) columns hold millisecond times; they fit in a double, so parse them as numbers
// rather than strings. COUNT(*) is int8 too.
pg.types.setTypeParser(20, (value: string) => Number(value));

export function openStorage(options: { databaseUrl: string | null; dataDir: string; poolSize?: number }): Storage {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle client that loses its server must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      sqlite: null,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => db.destroy(),
    };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = new SQLite(path.join(options.dataDir, 'parley.sqlite'));
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // SQLite's own lower() folds ASCII only, so a search for "élo" never met "Élodie" (PostgreSQL's
  // does); a connection may replace a built-in function, and this is JavaScript's full lower case.
  file.function('lower', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? searchFold(text) : text));
  cacheStatements(file);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  // WAL checkpoints on a worker thread once the database is busy (checkpointer.ts).
  const checkpointer = startBackgroundCheckpointer(file);
  return {
    db,
    dialect: 'sqlite',
    sqlite: file,
    poolStats: () => null,
    close: async () => {
      await checkpointer.stop();
      await db.destroy();
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running most of ours.
 * Keeping prepared statements by SQL text is safe because the one connection runs one query at a
 * time and we never stream (a streaming statement would be busy while cached).
 */
function cacheStatements(file: SQLite.Database, size = 2000): void {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = file.prepare.bind(file);
  file.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      if (cache.size >= size) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(source, statement);
    }
    return statement;
  }) as typeof file.prepare;
}

export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

export type Executor = Kysely<Database>;

/** The dialect behind a Kysely instance; migrations use it where column types must differ. */
export function dialectOf<T>(db: Kysely<T>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
