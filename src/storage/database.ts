import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type PostgresPool, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { startBackgroundCheckpointer } from './checkpointer.js';
import { ensurePrivateDir, ensurePrivateFile, narrowMode } from './file-modes.js';
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

/**
 * The database cannot be reached or refused the connection. The message names the address (never the
 * password of DATABASE_URL) and what to check, on one line.
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * How long opening one PostgreSQL connection (TCP, TLS, authentication) may take. pg waits for ever by
 * default, so a server behind a firewall that drops packets hung the start-up without a word.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Where DATABASE_URL points, as host:port (a socket directory for host=/path). */
function addressOf(url: URL): string {
  const host = url.searchParams.get('host') ?? (url.hostname === '' ? 'localhost' : url.hostname);
  const port = url.searchParams.get('port') ?? (url.port === '' ? '5432' : url.port);
  return host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : `${host}:${port}`;
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOENT: 'no such socket',
};

/** The one-line message for a failed PostgreSQL connection; `code` is pg's SQLSTATE or Node's errno. */
export function describeConnectFailure(error: unknown, databaseUrl: string): DatabaseUnavailableError {
  const url = new URL(databaseUrl);
  const address = addressOf(url);
  const code = (error as { code?: unknown }).code;
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  const role = /role "([^"]+)"/.exec(reason)?.[1] ?? (decodeURIComponent(url.username) || 'the default role');
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || role;
  const say = (message: string) => new DatabaseUnavailableError(message, { cause: error });
  if (typeof code === 'string' && UNREACHABLE[code])
    return say(`cannot reach PostgreSQL at ${address} (${UNREACHABLE[code]}): is it running? check DATABASE_URL`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return say(`cannot reach PostgreSQL at ${address} (the name does not resolve): check the host in DATABASE_URL`);
  if (/timeout/i.test(reason))
    return say(
      `cannot reach PostgreSQL at ${address} (no answer within ${CONNECT_TIMEOUT_MS / 1000} s): is it running, and can this machine reach it? check DATABASE_URL and firewalls`,
    );
  if (code === '28000' && /does not exist/.test(reason))
    return say(`PostgreSQL refused role '${role}': it does not exist on ${address}; create it or fix the user in DATABASE_URL`);
  if (code === '28P01') return say(`PostgreSQL refused the password of role '${role}' at ${address}: fix the password in DATABASE_URL`);
  if (code === '28000') return say(`PostgreSQL at ${address} refused the connection (${reason}): allow this client in pg_hba.conf or fix DATABASE_URL`);
  if (code === '3D000')
    return say(`PostgreSQL at ${address} has no database '${database}': create it (createdb ${database}) or fix the database name in DATABASE_URL`);
  if (code === '57P03') return say(`PostgreSQL at ${address} is starting up or shutting down: try again in a moment`);
  if (code === '53300') return say(`PostgreSQL at ${address} has no free connection slot: raise its max_connections or run fewer instances`);
  return say(`cannot connect to PostgreSQL at ${address} (${reason}): check DATABASE_URL`);
}

function openPostgres(databaseUrl: string, poolSize: number): Storage {
  class TimedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    }
  }
  // The timeout is the client's, not the pool's: a pool timeout would also fail requests that merely
  // wait for a busy pool.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize, Client: TimedClient });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => undefined);
  const connecting: PostgresPool = {
    connect: () => pool.connect().catch((error: unknown) => Promise.reject(describeConnectFailure(error, databaseUrl))),
    end: () => pool.end(),
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: connecting }) });
  return {
    db,
    dialect: 'postgres',
    sqlite: null,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

/**
 * Opens DATA_DIR/parley.sqlite; a directory it cannot write or a file that is no database is said plainly.
 * DATA_DIR is 0700 and the database 0600 whatever the umask (file-modes.ts); SQLite gives its -wal and
 * -shm files the database's mode, and those an earlier start left open are narrowed too.
 */
function openSqliteFile(dataDir: string): SQLite.Database {
  const file = path.join(dataDir, 'parley.sqlite');
  try {
    ensurePrivateDir(dataDir);
    ensurePrivateFile(file);
    for (const companion of [`${file}-wal`, `${file}-shm`]) narrowMode(companion);
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    return database;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = error instanceof Error ? error.message : String(error);
    if (code === 'SQLITE_NOTADB')
      throw new DatabaseUnavailableError(`${file} is not a SQLite database: move it away or point DATA_DIR at another directory`, { cause: error });
    throw new DatabaseUnavailableError(`cannot open the SQLite database ${file} (${reason}): check that this user may write DATA_DIR`, { cause: error });
  }
}

export function openStorage(options: { databaseUrl: string | null; dataDir: string; poolSize?: number }): Storage {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  const file = openSqliteFile(options.dataDir);
  file.pragma('synchronous = NORMAL');
  // Deleted rows are overwritten with zeros, in their page and on pages they free, so what an erasure
  // or retention removes is not left readable in free space (and so in backups, which copy every
  // page). ON rather than FAST: FAST leaves freed pages as they were, and a long text fills whole
  // overflow pages that its delete frees. wal-truncate.ts takes the old copies out of the WAL.
  file.pragma('secure_delete = ON');
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
