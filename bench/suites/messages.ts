import { randomBytes } from 'node:crypto';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  alternateRounds,
  type BenchRow,
  type BenchSuite,
  type LoadOptions,
  measure,
  printTable,
  ratio,
  type RunningServer,
  startParley,
  startScript,
} from '../lib.js';
import { compareMessagesWithRef } from './messages-compare.js';
import { createChannel, createLoad, pageLoad, TEXT_BODY } from './message-requests.js';

/**
 * The message create's cost over a naive baseline (node:http + one autocommit better-sqlite3
 * INSERT, run in the same `npm run bench`): how much the validation, auth, outbox and counters add
 * to a bare insert. And the page query in a channel of 100 messages next to one of 1,000,000 (seeded
 * with a direct bulk insert, not through HTTP): a page must cost the same whatever the channel's
 * size. SQLite always; PostgreSQL too when the local server answers (a fresh database, dropped
 * afterwards).
 *
 * BENCH_COMPARE_REF=<git ref>: instead, the current tree against that commit (messages-compare.ts).
 */
const PG_SERVER = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BIG = 1_000_000;
/** Rounds of BENCH_SECONDS / 2 per side in the alternating comparisons (create vs baseline on SQLite, page sizes). */
const ALTERNATING_ROUNDS = 4;
const SMALL = 100;

interface Seeder {
  seed(channelId: string, count: number): Promise<void>;
  close(): Promise<void>;
}

/** Rows like the server writes, numbered 1..count, in one transaction. */
function sqliteSeeder(dataDir: string): Seeder {
  const file = new SQLite(path.join(dataDir, 'parley.sqlite'));
  file.pragma('busy_timeout = 10000');
  const insert = file.prepare(
    `insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, children_number, is_deleted, file_id, media,
       flag_count, reactions, reactions_count, edited_at, created_at, updated_at)
     values (?, ?, ?, 'admin-env', 'text', ?, '[]', null, 0, 0, null, null, 0, '{}', 0, null, ?, ?)`,
  );
  const finish = file.prepare('update channels set last_segment = ?, message_count = ?, last_activity = ? where id = ?');
  const run = file.transaction((channelId: string, count: number) => {
    const now = Date.now();
    const prefix = randomBytes(4).toString('hex');
    for (let segment = 1; segment <= count; segment += 1) {
      insert.run(`${prefix}${segment.toString(16).padStart(16, '0')}`, channelId, segment, `{"text":"seeded message ${segment}"}`, now, now);
    }
    finish.run(count, count, now, channelId);
  });
  return {
    seed: async (channelId, count) => run(channelId, count),
    close: async () => {
      file.close();
    },
  };
}

function postgresSeeder(databaseUrl: string): Seeder {
  const client = new pg.Client({ connectionString: databaseUrl });
  const connected = client.connect();
  return {
    async seed(channelId, count) {
      await connected;
      const prefix = randomBytes(4).toString('hex');
      await client.query(
        `insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, children_number, is_deleted, file_id, media,
           flag_count, reactions, reactions_count, edited_at, created_at, updated_at)
         select $1 || lpad(to_hex(g), 16, '0'), $2, g, 'admin-env', 'text', '{"text":"seeded message ' || g || '"}', '[]', null, 0, 0, null, null,
           0, '{}', 0, null, $3, $3
         from generate_series(1, $4::int) as g`,
        [prefix, channelId, Date.now(), count],
      );
      await client.query('update channels set last_segment = $1, message_count = $1, last_activity = $2 where id = $3', [count, Date.now(), channelId]);
      await client.query('analyze messages');
    },
    close: async () => {
      await connected;
      await client.end();
    },
  };
}

/**
 * The machine is shared and its background load drifts, so the baseline is measured right before and
 * right after the create, and the ratio is taken to their mean.
 */
async function measureParley(
  label: string,
  server: RunningServer,
  seeder: Seeder,
  /** The bare-insert baseline's load; `alternate`: also compare with it in alternating rounds. */
  naive: { load: LoadOptions; alternate: boolean },
): Promise<BenchRow[]> {
  const measureBaseline = (name: string) => measure(name, naive.load);
  for (const channelId of ['bench', 'small', 'big']) await createChannel(server, channelId);
  const create = createLoad(server, 'bench');
  // Warm-up: JIT, statement caches, pools.
  await measure('warm-up', { ...create, durationSeconds: 2 });
  const before = await measureBaseline(`baseline, just before ${label}`);
  const createRow = await measure(`${label}: POST /api/v2/message (text, admin token)`, create);
  const after = await measureBaseline(`baseline, just after ${label}`);
  const baseline: BenchRow = { name: 'mean', requestsPerSecond: (before.requestsPerSecond + after.requestsPerSecond) / 2, p50Ms: 0, p99Ms: 0 };
  createRow.note = [`ratio to baseline (mean of the two around it) ${ratio(createRow, baseline)}`, createRow.note].filter(Boolean).join('; ');
  const alternating: BenchRow[] = [];
  if (naive.alternate) {
    // The same comparison in alternating rounds of half the duration: on a shared machine whose speed
    // drifts by tens of percent within a minute, the three runs above can land in different phases.
    const [baselineRounds, createRounds] = await alternateRounds(
      { name: 'baseline, alternating rounds', load: naive.load },
      { name: `${label}: POST /api/v2/message, alternating rounds`, load: create },
      ALTERNATING_ROUNDS,
    );
    createRounds.note = [`ratio ${ratio(createRounds, baselineRounds)}`, createRounds.note].filter(Boolean).join('; ');
    alternating.push(baselineRounds, createRounds);
  }

  const started = Date.now();
  await seeder.seed('small', SMALL);
  await seeder.seed('big', BIG);
  process.stdout.write(`${label}: seeded ${SMALL} + ${BIG.toLocaleString('en')} messages in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  // In alternating rounds, like the create: the two sizes are compared with each other, and two
  // back-to-back runs on this shared machine can differ by a third from its drift alone.
  const [querySmall, queryBig] = await alternateRounds(
    { name: `${label}: POST /api/v2/messages, newest 50 of ${SMALL}`, load: pageLoad(server, 'small', { last: 50 }) },
    { name: `${label}: POST /api/v2/messages, newest 50 of ${BIG.toLocaleString('en')}`, load: pageLoad(server, 'big', { last: 50 }) },
    ALTERNATING_ROUNDS,
  );
  const queryMiddle = await measure(`${label}: same, 50 before segment 500,000`, pageLoad(server, 'big', { before: 500_000, last: 50 }));
  queryBig.note = [`${ratio(queryBig, querySmall)} x the 100-message channel's rate`, queryBig.note].filter(Boolean).join('; ');
  queryMiddle.note = [`${ratio(queryMiddle, querySmall)} x the 100-message channel's rate`, queryMiddle.note].filter(Boolean).join('; ');
  return [before, createRow, after, ...alternating, querySmall, queryBig, queryMiddle];
}

async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const admin = new pg.Client({ connectionString: PG_SERVER, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_SERVER);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_SERVER });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function runSqlite(baselineLoad: LoadOptions): Promise<BenchRow[]> {
  const server = await startParley();
  const seeder = sqliteSeeder(server.dataDir);
  try {
    return await measureParley('SQLite', server, seeder, { load: baselineLoad, alternate: true });
  } finally {
    await seeder.close();
    await server.stop();
  }
}

async function runPostgres(baselineLoad: LoadOptions): Promise<BenchRow[]> {
  const database = await postgresDatabase();
  if (database === null) {
    process.stdout.write(`PostgreSQL figures skipped: nothing answers at ${PG_SERVER}.\n`);
    return [];
  }
  try {
    const server = await startParley({ DATABASE_URL: database.url });
    const seeder = postgresSeeder(database.url);
    try {
      return await measureParley('PostgreSQL', server, seeder, { load: baselineLoad, alternate: false });
    } finally {
      await seeder.close();
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

export const messagesSuite: BenchSuite = {
  name: 'messages',
  async run() {
    const compareRef = process.env.BENCH_COMPARE_REF;
    if (compareRef) return compareMessagesWithRef(compareRef);
    // The baseline: node:http + one autocommit INSERT (better-sqlite3, WAL, synchronous=NORMAL). It
    // stays up (idle) while Parley is measured, so it can be measured again right after.
    const naive = await startScript('bench/baselines/sqlite-insert.ts');
    const load = { url: `${naive.url}/`, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: TEXT_BODY('bench') };
    const rows: BenchRow[] = [];
    try {
      await measure('warm-up', { ...load, durationSeconds: 2 });
      rows.push(...(await runSqlite(load)));
      rows.push(...(await runPostgres(load)));
    } finally {
      await naive.stop();
    }
    printTable('Messages (50 connections; targets: create ratio >= 1.0 on SQLite, p99 < 10 ms; page cost flat in channel size)', rows);
  },
};
