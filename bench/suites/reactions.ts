import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createReactionsStore } from '../../src/modules/reactions/reactions.store.js';
import { openStorage, type Storage } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { type BenchRow, type BenchSuite, measure, printTable, startParley } from '../lib.js';

/**
 * Reactions: most-reacted answers from an index, not a scan, so it takes the same time
 * (target: within 2x) with 1,000 and with 1,000,000 messages in the database.
 *
 * Each database is filled directly through SQLite (a million messages through HTTP would take hours):
 * one channel, every message with a `like` count between 1 and 1,000 and every fourth with a `love`
 * count, the message rows' `reactions` / `reactionsCount` matching, and every 50th message deleted
 * (the ranking passes over deleted ones). The per-user reaction rows are not written: most-reacted
 * never reads them. Then, for each size:
 * 1. in-process: the store's query, median and p99 of single calls;
 * 2. over HTTP: GET /api/v2/reactions/messages/most?reactionName=like&limit=10 against a Parley server
 *    started on that database, 10 connections.
 */
const SIZES = [1_000, 1_000_000];
const NAME = 'like';

function messageIdOf(index: number): string {
  // ObjectId-like: 4 bytes of "seconds" then a counter, so ids sort by index as real ones sort by time.
  return (0x65000000 + Math.floor(index / 1000)).toString(16) + index.toString(16).padStart(16, '0');
}

function likesOf(index: number): number {
  return 1 + ((index * 7919) % 1000);
}

async function fill(storage: Storage, count: number): Promise<void> {
  const file = storage.sqlite;
  if (!file) throw new Error('the reactions bench fills SQLite');
  const now = Date.now();
  file
    .prepare(
      `insert into channels (id, type, display_name, metadata, tags, is_closed, mute_until, member_count, message_count, last_segment, last_activity, created_at, updated_at)
       values ('bench', 'standard', null, '{}', '[]', 0, null, 0, ?, ?, ?, ?, ?)`,
    )
    .run(count, count, now, now, now);
  const message = file.prepare(
    `insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, children_number, is_deleted, file_id, media, flag_count, reactions, reactions_count, edited_at, created_at, updated_at)
     values (?, 'bench', ?, 'admin-env', 'text', ?, '[]', null, 0, ?, null, null, 0, ?, ?, null, ?, ?)`,
  );
  const counted = file.prepare('insert into message_reaction_counts (message_id, reaction_name, reaction_count) values (?, ?, ?)');
  const batch = file.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = messageIdOf(i);
      const likes = likesOf(i);
      const loves = i % 4 === 0 ? 1 + (i % 37) : 0;
      const reactions = loves > 0 ? { like: likes, love: loves } : { like: likes };
      const deleted = i % 50 === 49 ? 1 : 0;
      message.run(id, i + 1, deleted ? '{}' : '{"text":"bench message"}', deleted, JSON.stringify(reactions), likes + loves, now, now);
      counted.run(id, NAME, likes);
      if (loves > 0) counted.run(id, 'love', loves);
    }
  });
  for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
  // What a long-running database has: planner statistics.
  await sql`analyze`.execute(storage.db);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

async function inProcess(storage: Storage): Promise<{ medianUs: number; p99Us: number; top: number }> {
  const store = createReactionsStore(storage.db, storage.dialect);
  for (let i = 0; i < 500; i++) await store.mostReacted(NAME, 10, 'all');
  const budgetMs = Math.min(3000, Number(process.env.BENCH_SECONDS ?? 10) * 200);
  const times: number[] = [];
  let top = 0;
  const started = performance.now();
  while (performance.now() - started < budgetMs) {
    const t0 = performance.now();
    const rows = await store.mostReacted(NAME, 10, 'all');
    times.push(performance.now() - t0);
    top = rows[0]?.reaction_count ?? 0;
  }
  times.sort((a, b) => a - b);
  return { medianUs: percentile(times, 0.5) * 1000, p99Us: percentile(times, 0.99) * 1000, top };
}

/** The plan of the store's first step (the index walk); the second is a primary-key lookup of those ids. */
async function planOf(storage: Storage): Promise<string> {
  const rows = await sql<{ detail: string }>`explain query plan
    select message_id, reaction_count from message_reaction_counts where reaction_name = ${NAME}
    order by reaction_count desc, message_id desc limit 26`.execute(storage.db);
  return rows.rows.map((row) => row.detail).join('; ');
}

interface SizeResult {
  count: number;
  fillSeconds: number;
  local: { medianUs: number; p99Us: number; top: number };
  http: BenchRow;
  plan: string;
}

async function runSize(count: number): Promise<SizeResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-reactions-'));
  try {
    const storage = openStorage({ databaseUrl: null, dataDir });
    let fillSeconds: number;
    let local: SizeResult['local'];
    let plan: string;
    try {
      await migrateToLatest(storage.db);
      const started = performance.now();
      await fill(storage, count);
      fillSeconds = (performance.now() - started) / 1000;
      local = await inProcess(storage);
      plan = await planOf(storage);
    } finally {
      await storage.close();
    }
    const parley = await startParley({ DATA_DIR: dataDir });
    try {
      const http = await measure(`GET most-reacted, ${count.toLocaleString('en')} messages`, {
        url: `${parley.url}/api/v2/reactions/messages/most?reactionName=${NAME}&limit=10`,
        headers: { authorization: `Bearer ${parley.adminToken}` },
        connections: 10,
      });
      return { count, fillSeconds, local, http, plan };
    } finally {
      await parley.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export const reactionsSuite: BenchSuite = {
  name: 'reactions',
  async run() {
    const results: SizeResult[] = [];
    for (const count of SIZES) results.push(await runSize(count));
    const [small, large] = results as [SizeResult, SizeResult];
    large.http.note = `p50 ratio to 1,000: ${(large.http.p50Ms / Math.max(0.01, small.http.p50Ms)).toFixed(2)}; req/s ratio ${(large.http.requestsPerSecond / Math.max(1, small.http.requestsPerSecond)).toFixed(2)} (target: within 2x)`;
    printTable(
      'Most-reacted over HTTP (SQLite, 10 connections, limit=10)',
      results.map((result) => result.http),
    );
    const lines = [
      '\n## Most-reacted query in-process (the store, one call at a time)',
      '| messages | fill s | median µs | p99 µs | top count | ratio of medians to 1,000 |',
      '|---:|---:|---:|---:|---:|---:|',
      ...results.map(
        (result) =>
          `| ${result.count.toLocaleString('en')} | ${result.fillSeconds.toFixed(1)} | ${result.local.medianUs.toFixed(1)} | ${result.local.p99Us.toFixed(1)} | ${result.local.top} | ${(result.local.medianUs / Math.max(0.001, small.local.medianUs)).toFixed(2)} |`,
      ),
      `\nQuery plan (1,000,000): ${large.plan}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
