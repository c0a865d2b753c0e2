import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { databases, type Finished, freshDatabase, linesOf, runParley, runServer, tempDataDir } from '../cli/processes.js';

/**
 * A database that cannot be used is reported in one line that names the address and what to check,
 * the same at server start and in the command line, and never with the password of DATABASE_URL.
 */
const PASSWORD = 'hunter2-not-for-printing';

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `parley migrate` and a server start, side by side, on the same environment. */
function migrateAndStart(env: Record<string, string>): Promise<Finished[]> {
  return Promise.all([runParley(['migrate'], env), runServer(env)]);
}

function expectOneLineFailure(result: Finished, pattern: RegExp): void {
  expect(result.code).toBe(1);
  expect(linesOf(result.stderr)).toEqual([expect.stringMatching(pattern)]);
  expect(result.stderr).not.toContain(PASSWORD);
  expect(result.stderr).not.toContain('Migration (unknown)');
}

describe('a PostgreSQL server that cannot be used', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = tempDataDir();
  });

  it('nothing listens: "cannot reach PostgreSQL at host:port (connection refused)"', async () => {
    const port = await closedPort();
    const env = { DATA_DIR: dataDir, DATABASE_URL: `postgres://parley:${PASSWORD}@127.0.0.1:${port}/parley` };
    for (const result of await migrateAndStart(env)) {
      expectOneLineFailure(
        result,
        new RegExp(`^parley: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port} \\(connection refused\\): is it running\\? check DATABASE_URL$`),
      );
    }
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('a role that does not exist: "PostgreSQL refused role \'x\'" (skipped without TEST_DATABASE_URL)', async () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.username = 'no_such_parley_role';
    url.password = PASSWORD;
    for (const result of await migrateAndStart({ DATA_DIR: dataDir, DATABASE_URL: url.toString() })) {
      expectOneLineFailure(result, /^parley: PostgreSQL refused (role 'no_such_parley_role'|the password of role 'no_such_parley_role')/);
    }
  });
});

describe.each(databases)('a %s database written by a newer Parley', (database) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;

  beforeAll(async () => {
    fresh = await freshDatabase(database);
    const storage = openStorage({ databaseUrl: fresh.env.DATABASE_URL ?? null, dataDir: fresh.dataDir });
    try {
      await migrateToLatest(storage.db);
      await sql`insert into kysely_migration (name, timestamp) values ('0099_from_a_newer_parley', ${new Date().toISOString()})`.execute(storage.db);
    } finally {
      await storage.close();
    }
  });
  afterAll(async () => {
    await fresh.close();
  });

  it('says to upgrade Parley, at start and in `parley migrate`', { timeout: 120_000 }, async () => {
    for (const result of await migrateAndStart(fresh.env)) {
      expectOneLineFailure(result, /^parley: this database was written by a newer Parley \(migration 0099_from_a_newer_parley is unknown\): upgrade Parley$/);
    }
  });
});
