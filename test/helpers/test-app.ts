import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openStorage } from '../../src/storage/database.js';
import { installResponseValidation, type ResponseValidation } from './response-validation.js';

export type TestDatabase = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL names a server (see vitest.setup.ts). */
export const testDatabases: TestDatabase[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestApp extends BuiltApp {
  /** Another instance on the same database (PostgreSQL only), as in a scale-out deployment. */
  startPeer(env?: Record<string, string>, options?: Omit<Parameters<typeof buildApp>[1], 'storage'>): Promise<BuiltApp>;
  adminToken: string;
  /** The answers checked against their routes' declared response schemas; null unless asked for. */
  responses: ResponseValidation | null;
  /** An id no other test in this run uses. */
  uniqueId(prefix: string): string;
  close(): Promise<void>;
}

async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL as string;
  const name = `parley_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface TestAppOptions extends Omit<NonNullable<Parameters<typeof buildApp>[1]>, 'storage'> {
  /**
   * Hold every answer to its route's declared response schema (helpers/response-validation.ts); a
   * mismatch fails the test that caused it. Also on for every app when PARLEY_TEST_VALIDATE_RESPONSES=1.
   */
  validateResponses?: boolean;
}

/** Builds an app on a fresh database of the given kind, with an admin token ready to use. */
export async function startTestApp(database: TestDatabase, env: Record<string, string> = {}, testOptions: TestAppOptions = {}): Promise<TestApp> {
  const { validateResponses = process.env.PARLEY_TEST_VALIDATE_RESPONSES === '1', ...options } = testOptions;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  const pgDatabase = database === 'postgres' ? await createPostgresDatabase() : null;
  const adminToken = randomBytes(32).toString('hex');
  const config: Config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PARLEY_ADMIN_TOKEN: adminToken,
    ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
    ...env,
  });
  const storage = openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 20 });
  const built = await buildApp(config, { ...options, storage });
  const responses = validateResponses ? installResponseValidation(built.app) : null;
  await built.app.ready();
  let counter = 0;
  const peers: BuiltApp[] = [];
  const peerValidations: ResponseValidation[] = [];
  const runTag = randomBytes(3).toString('hex');
  return {
    ...built,
    adminToken,
    responses,
    uniqueId: (prefix: string) => `${prefix}-${runTag}-${++counter}`,
    startPeer: async (peerEnv = {}, peerOptions = {}) => {
      if (!pgDatabase) throw new Error('a peer instance needs PostgreSQL');
      const peerConfig = loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        PARLEY_ADMIN_TOKEN: adminToken,
        DATABASE_URL: pgDatabase.url,
        ...env,
        ...peerEnv,
      });
      const peer = await buildApp(peerConfig, { ...peerOptions, storage: openStorage({ databaseUrl: peerConfig.databaseUrl, dataDir, poolSize: 10 }) });
      if (validateResponses) peerValidations.push(installResponseValidation(peer.app));
      await peer.app.ready();
      peers.push(peer);
      return peer;
    },
    close: async () => {
      for (const peer of peers) await peer.app.close();
      await built.app.close();
      await pgDatabase?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      for (const validation of [responses, ...peerValidations]) validation?.assertNoneUnreported();
    },
  };
}
