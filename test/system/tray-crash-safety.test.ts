import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/database.js';
import { testDatabases } from '../helpers/test-app.js';
import type { HistoryJson } from '../helpers/tray.js';
import { killServerProcess as kill, type ServerProcess as Server, startServerProcess } from '../helpers/server-process.js';

/**
 * The tray is fed through the durable outbox: a server killed with SIGKILL right after a comment
 * committed, and started again on the same data, still produces the record, exactly once.
 * PARLEY_TRAY_CONSUMER_DELAY_MS (test only) holds the consumer back, so the kill lands before the
 * tray saw the event, and the test checks that it did.
 */
const adminToken = randomBytes(32).toString('hex');

/** This file's server: the admin token and the tray on. */
function startServer(env: Record<string, string>): Promise<Server> {
  return startServerProcess({ PARLEY_ADMIN_TOKEN: adminToken, PARLEY_TRAY_ENABLED: '1', ...env });
}

async function call(url: string, method: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

async function ok<T>(url: string, method: string, token: string, body?: unknown): Promise<T> {
  const { status, json } = await call(url, method, token, body);
  if (status !== 200) throw new Error(`${method} ${url}: ${status} ${JSON.stringify(json)}`);
  return json as T;
}

async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL as string;
  const name = `parley_traycrash_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

describe.each(testDatabases)('the tray across SIGKILL on %s', (database) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function setUp() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-traycrash-'));
    const pgDatabase = database === 'postgres' ? await createDatabase() : null;
    cleanups.push(async () => {
      await pgDatabase?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const env = { DATA_DIR: dataDir, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) };
    /** Counts rows straight from the database while no server runs. */
    const count = async (table: 'tray_records' | 'tray_contributions', ownerOrActor: string): Promise<number> => {
      const storage = openStorage({ databaseUrl: pgDatabase?.url ?? null, dataDir });
      try {
        const rows =
          table === 'tray_records'
            ? await storage.db.selectFrom('tray_records').select('id').where('owner_key', '=', `u:${ownerOrActor}`).execute()
            : await storage.db.selectFrom('tray_contributions').select('source_key').where('actor_id', '=', ownerOrActor).execute();
        return rows.length;
      } finally {
        await storage.close();
      }
    };
    return { env, count };
  }

  async function usersOn(server: Server) {
    const make = async (prefix: string) => {
      const userId = `${prefix}-${randomBytes(3).toString('hex')}`;
      await ok(`${server.url}/api/v2/users`, 'PUT', adminToken, { userId, displayName: prefix });
      const { accessToken } = await ok<{ accessToken: string }>(`${server.url}/api/v2/users/${userId}/tokens`, 'POST', adminToken, { expiresIn: 3600 });
      return { userId, token: accessToken };
    };
    return { owner: await make('Owner'), ann: await make('Ann') };
  }

  async function waitForHistory(server: Server, token: string, length: number): Promise<HistoryJson> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { status, json } = await call(`${server.url}/notifications/history`, 'GET', token);
      if (status === 200 && (json as HistoryJson).data.length >= length) return json as HistoryJson;
      if (Date.now() > deadline) throw new Error(`history did not reach ${length} records: ${JSON.stringify(json)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('produces the record exactly once when the process is killed right after the comment committed', async () => {
    const { env, count } = await setUp();
    // First life: the consumer waits 3 s after each commit, so the kill comes first.
    let server = await startServer({ ...env, PARLEY_TRAY_CONSUMER_DELAY_MS: '3000' });
    const { owner, ann } = await usersOn(server);
    const { postId } = await ok<{ postId: string }>(`${server.url}/client/v1/posts`, 'POST', owner.token, { text: 'my post' });
    const comment = await call(`${server.url}/client/v1/posts/${postId}/comments`, 'POST', ann.token, { text: 'first!' });
    await kill(server);
    expect(comment.status).toBe(200);
    expect(await count('tray_records', owner.userId)).toBe(0); // committed, not yet in the tray

    // Second life, no delay: the consumer resumes from its cursor.
    server = await startServer(env);
    const history = await waitForHistory(server, owner.token, 1);
    expect(history.data).toHaveLength(1);
    expect(history.data[0]).toMatchObject({ verb: 'comment', targetId: postId, actorsCount: 1, description: 'Ann commented on your post' });
    await kill(server);
    expect(await count('tray_records', owner.userId)).toBe(1);
    expect(await count('tray_contributions', ann.userId)).toBe(1);

    // A third life changes nothing: the event is not handled twice.
    server = await startServer(env);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const again = await waitForHistory(server, owner.token, 1);
    expect(again.data).toEqual(history.data);
    await kill(server);
    expect(await count('tray_contributions', ann.userId)).toBe(1);
  });

  it('is exactly once when the kill lands without a delay too', async () => {
    const { env, count } = await setUp();
    let server = await startServer(env);
    const { owner, ann } = await usersOn(server);
    const { postId } = await ok<{ postId: string }>(`${server.url}/client/v1/posts`, 'POST', owner.token, { text: 'my post' });
    const comment = await call(`${server.url}/client/v1/posts/${postId}/comments`, 'POST', ann.token, { text: 'first!' });
    await kill(server);
    expect(comment.status).toBe(200);
    server = await startServer(env);
    const history = await waitForHistory(server, owner.token, 1);
    expect(history.data).toHaveLength(1);
    expect(history.data[0]?.actorsCount).toBe(1);
    await kill(server);
    expect(await count('tray_records', owner.userId)).toBe(1);
    expect(await count('tray_contributions', ann.userId)).toBe(1);
  });
});
