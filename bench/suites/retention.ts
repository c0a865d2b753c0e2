import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStorage } from '../../src/storage/database.js';
import { type BenchSuite, type LoadSample, percentile, sampleLoad, startParley } from '../lib.js';

/**
 * Message retention under write load: a SQLite database filled with BENCH_RETENTION_MESSAGES messages
 * (default 1,000,000, 90% older than the 30-day period) in BENCH_RETENTION_CHANNELS channels (default
 * 100); admin message creates at 10 connections are measured without a retention run, then while runs
 * (POST /api/v2/retention/run, repeated until nothing expired is left) delete the expired ones.
 * BENCH_SECONDS is the load phase without a run (default 10). Nothing here asserts.
 */
const DAY = 86_400_000;
const DAYS = 30;

async function post(url: string, token: string, body: unknown): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Writes `total` messages straight into the database file, spread over the channels, oldest first. */
async function fill(dataDir: string, channelIds: string[], userId: string, total: number, expiredShare: number): Promise<void> {
  const storage = openStorage({ databaseUrl: null, dataDir });
  const raw = storage.sqlite;
  if (raw === null) throw new Error('the retention bench fills a SQLite database');
  const insert = raw.prepare(
    `insert into messages (id, channel_id, segment, user_id, type, data, tags, parent_id, children_number, is_deleted, file_id, media,
       flag_count, reactions, reactions_count, edited_at, created_at, updated_at, topic_id)
     values (?, ?, ?, ?, 'text', ?, '[]', null, 0, 0, null, null, 0, '{}', 0, null, ?, ?, null)`,
  );
  const setCounts = raw.prepare('update channels set last_segment = ?, message_count = ? where id = ?');
  const now = Date.now();
  const expired = Math.round(total * expiredShare);
  const perChannel = Math.ceil(total / channelIds.length);
  const write = raw.transaction((from: number, to: number) => {
    for (let i = from; i < to; i += 1) {
      // Expired ones 60 days back and younger, the rest within the last 10 days, in time order.
      const at =
        i < expired ? now - 60 * DAY + Math.floor((i / expired) * 25 * DAY) : now - 10 * DAY + Math.floor(((i - expired) / (total - expired)) * 9 * DAY);
      const channel = i % channelIds.length;
      // Ids begin with their message's second, as newObjectId(created_at) makes them: retention walks them.
      const second = Math.floor(at / 1000)
        .toString(16)
        .padStart(8, '0');
      insert.run(
        `${second}${i.toString(16).padStart(16, '0')}`,
        channelIds[channel],
        Math.floor(i / channelIds.length) + 1,
        userId,
        `{"text":"message ${i} of the retention bench"}`,
        at,
        at,
      );
    }
  });
  for (let from = 0; from < total; from += 20_000) write(from, Math.min(total, from + 20_000));
  for (const [index, channelId] of channelIds.entries()) {
    const count = Math.max(0, Math.min(perChannel, Math.floor((total - index - 1) / channelIds.length) + 1));
    setCounts.run(count, count, channelId);
  }
  raw.pragma('wal_checkpoint(TRUNCATE)');
  await storage.close();
}

function row(name: string, sample: LoadSample, note: string): string {
  const rps = sample.responses / Math.max(0.001, sample.seconds);
  return `| ${name} | ${Math.round(rps)} | ${percentile(sample.latenciesMs, 0.5).toFixed(1)} | ${percentile(sample.latenciesMs, 0.99).toFixed(1)} | ${note} |`;
}

function pooled(samples: LoadSample[]): LoadSample {
  return {
    responses: samples.reduce((sum, s) => sum + s.responses, 0),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    seconds: samples.reduce((sum, s) => sum + s.seconds, 0),
    latenciesMs: samples.flatMap((s) => s.latenciesMs),
  };
}

export const retentionSuite: BenchSuite = {
  name: 'retention',
  async run() {
    const total = Number(process.env.BENCH_RETENTION_MESSAGES ?? 1_000_000);
    const channelCount = Number(process.env.BENCH_RETENTION_CHANNELS ?? 100);
    const seconds = Number(process.env.BENCH_SECONDS ?? 10);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-retention-'));
    const env = { DATA_DIR: dataDir, PARLEY_MESSAGE_RETENTION_DAYS: String(DAYS) };
    try {
      // The schema, the channels and the admin user come from the server itself; the messages go in directly.
      const setup = await startParley(env);
      const channelIds = Array.from({ length: channelCount }, (_, i) => `retention-${i}`);
      for (const channelId of channelIds) await post(`${setup.url}/api/v2/channel`, setup.adminToken, { channelId, type: 'standard' });
      const writeChannel = 'retention-writes';
      await post(`${setup.url}/api/v2/channel`, setup.adminToken, { channelId: writeChannel, type: 'standard' });
      await setup.stop();
      const filling = performance.now();
      await fill(dataDir, channelIds, 'admin-env', total, 0.9);
      const fillSeconds = (performance.now() - filling) / 1000;

      const parley = await startParley(env);
      const load = (durationSeconds: number) =>
        sampleLoad({
          url: `${parley.url}/api/v2/message`,
          method: 'POST',
          headers: { authorization: `Bearer ${parley.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ channelId: writeChannel, type: 'text', data: { text: 'written during retention' } }),
          connections: 10,
          durationSeconds,
        });
      const quiet = await load(seconds);

      let deleted = 0;
      let runs = 0;
      let done = false;
      const started = performance.now();
      const retention = (async () => {
        for (;;) {
          const answer = (await post(`${parley.url}/api/v2/retention/run`, parley.adminToken, undefined)) as {
            data: { claimed: boolean; deleted: number; more: boolean };
          };
          runs += 1;
          deleted += answer.data.deleted;
          // Not claimed: the server's own periodic run has it; look again shortly.
          if (!answer.data.claimed) await new Promise((resolve) => setTimeout(resolve, 500));
          else if (!answer.data.more) break;
        }
        done = true;
      })();
      const busy: LoadSample[] = [];
      while (!done) busy.push(await load(2));
      await retention;
      const runSeconds = (performance.now() - started) / 1000;
      await parley.stop();

      const lines = [
        `\n## Message retention (SQLite, ${total.toLocaleString('en')} messages, 90% expired, ${channelCount} channels; admin creates at 10 connections)`,
        '| phase | creates/s | p50 ms | p99 ms | note |',
        '|---|---:|---:|---:|---|',
        row('creates, no retention run', quiet, quiet.failures > 0 ? `${quiet.failures} non-2xx/errors` : ''),
        row('creates during the retention run', pooled(busy), `${pooled(busy).failures} non-2xx/errors`),
        '',
        '| filled in | run took | messages deleted | deleted/s | runs |',
        '|---:|---:|---:|---:|---:|',
        `| ${fillSeconds.toFixed(1)} s | ${runSeconds.toFixed(1)} s | ${deleted} | ${Math.round(deleted / runSeconds)} | ${runs} |`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
