import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { seedDemo } from '../../src/cli/seed.js';
import { openStorage } from '../../src/storage/database.js';
import { type BenchRow, type BenchSuite, type LoadOptions, measure, printTable, type RunningServer, startParley } from '../lib.js';
import { createChannel, createLoad } from './message-requests.js';

/**
 * GET /api/v2/stats/daily (the Overview's charts) on a network of BENCH_STATS_MESSAGES messages
 * (default 1,000,000) from 2,000 people in 200 channels, written by `parley seed` (whose history the
 * daily counters count, as the outbox consumer counts live messages): the endpoint alone at 10
 * connections for 30 and 90 days, then at 10 connections while 20 more create messages, which the
 * consumer rolls up meanwhile. GET /api/v2/stats (the totals) for comparison. SQLite always;
 * PostgreSQL too when BENCH_DATABASE_URL (default the local server) answers. Nothing here asserts.
 */
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MESSAGES = Number(process.env.BENCH_STATS_MESSAGES ?? 1_000_000);
const USERS = 2000;
const CHANNELS = 200;

interface Daily {
  days: Array<{ messages: number; activeUsers: number }>;
}

async function readDaily(server: RunningServer): Promise<Daily> {
  const response = await fetch(`${server.url}/api/v2/stats/daily?days=90`, { headers: { authorization: `Bearer ${server.adminToken}` } });
  if (!response.ok) throw new Error(`stats/daily: ${response.status} ${await response.text()}`);
  return (await response.json()) as Daily;
}

const get = (server: RunningServer, url: string, connections = 10): LoadOptions => ({
  url: `${server.url}${url}`,
  headers: { authorization: `Bearer ${server.adminToken}` },
  connections,
});

async function seed(databaseUrl: string | null, dataDir: string, label: string): Promise<void> {
  const storage = openStorage({ databaseUrl, dataDir });
  const started = performance.now();
  try {
    await seedDemo(storage, { users: USERS, channels: CHANNELS, messages: MESSAGES });
  } finally {
    await storage.close();
  }
  process.stdout.write(`${label}: seeded ${MESSAGES.toLocaleString('en')} messages in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}

async function measureServer(label: string, server: RunningServer): Promise<BenchRow[]> {
  const counted = (await readDaily(server)).days.reduce((sum, day) => sum + day.messages, 0);
  await measure('warm-up', { ...get(server, '/api/v2/stats/daily?days=30'), durationSeconds: 2 });
  const alone30 = await measure(`${label}: GET /stats/daily?days=30`, get(server, '/api/v2/stats/daily?days=30'));
  const alone90 = await measure(`${label}: GET /stats/daily?days=90`, get(server, '/api/v2/stats/daily?days=90'));
  const totals = await measure(`${label}: GET /stats (totals, for comparison)`, get(server, '/api/v2/stats'));
  await createChannel(server, 'stats-bench-writes');
  const [underLoad, writes] = await Promise.all([
    measure(`${label}: GET /stats/daily?days=30 while messages are created`, get(server, '/api/v2/stats/daily?days=30')),
    measure(`${label}: POST /message meanwhile (20 connections)`, { ...createLoad(server, 'stats-bench-writes'), connections: 20 }),
  ]);
  const after = await readDaily(server);
  const total = after.days.reduce((sum, day) => sum + day.messages, 0);
  const people = Math.max(0, ...after.days.map((day) => day.activeUsers));
  alone30.note = [alone30.note, `${counted.toLocaleString('en')} messages counted in the window before the load`].filter(Boolean).join('; ');
  underLoad.note = [underLoad.note, `${total.toLocaleString('en')} counted after it; busiest day ${people.toLocaleString('en')} active people`]
    .filter(Boolean)
    .join('; ');
  return [alone30, alone90, totals, underLoad, writes];
}

async function runSqlite(): Promise<BenchRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-stats-'));
  try {
    await seed(null, dataDir, 'SQLite');
    const server = await startParley({ DATA_DIR: dataDir });
    try {
      return await measureServer('SQLite', server);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runPostgres(): Promise<BenchRow[]> {
  const admin = new pg.Client({ connectionString: PG_SERVER, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    process.stdout.write(`PostgreSQL figures skipped: nothing answers at ${PG_SERVER}.\n`);
    return [];
  }
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-stats-'));
  try {
    await seed(url.toString(), dataDir, 'PostgreSQL');
    const server = await startParley({ DATABASE_URL: url.toString() });
    try {
      return await measureServer('PostgreSQL', server);
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: PG_SERVER });
    await client.connect();
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  }
}

export const statsSuite: BenchSuite = {
  name: 'stats',
  async run() {
    const rows = [...(await runSqlite()), ...(await runPostgres())];
    printTable(`Daily statistics at ${MESSAGES.toLocaleString('en')} messages (10 connections on the endpoint; BENCH_SECONDS per row)`, rows);
  },
};
