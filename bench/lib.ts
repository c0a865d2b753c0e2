import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/** One row of the printed benchmark table. */
export interface BenchRow {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Free text: the ratio to a baseline, a target, a note. */
  note?: string;
}

export interface RunningServer {
  url: string;
  adminToken: string;
  dataDir: string;
  /** The server process, e.g. to read its resident memory from /proc/<pid>/status. */
  pid: number;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, '..');

/** Starts Parley in a child process (its own core), on a fresh SQLite data dir unless env says otherwise. */
export async function startParley(env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const adminToken = randomBytes(32).toString('hex');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', PARLEY_ADMIN_TOKEN: adminToken, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await waitForAddress(child);
  return {
    url,
    adminToken,
    dataDir,
    pid: child.pid ?? 0,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts a node script that prints `listening <url>` on stdout (baselines). */
export async function startScript(script: string, env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await waitForAddress(child);
  return { url, stop: () => stopChild(child) };
}

function waitForAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error('server did not start within 60 s')), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const match = /(?:serving on|listening) (http:\/\/[^\s]+)/.exec(buffered);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** A fixed body, or one made per request (e.g. unique ids). */
  body?: string | (() => string);
  connections?: number;
  durationSeconds?: number;
}

/** Drives load with autocannon; bounded in time. */
export async function measure(name: string, options: LoadOptions): Promise<BenchRow> {
  const makeBody = options.body;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10),
    ...(typeof makeBody === 'function'
      ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: makeBody() }) }] }
      : makeBody !== undefined
        ? { body: makeBody }
        : {}),
  });
  const errors = result.non2xx + result.errors;
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ...(errors > 0 ? { note: `${errors} non-2xx/errors` } : {}),
  };
}

/** Averages rounds of one server into one row (p50/p99: the mean of the rounds'). */
function combineRounds(name: string, rounds: BenchRow[]): BenchRow {
  const mean = (pick: (row: BenchRow) => number) => rounds.reduce((sum, row) => sum + pick(row), 0) / rounds.length;
  const notes = rounds.map((row) => row.note).filter(Boolean);
  return {
    name,
    requestsPerSecond: mean((row) => row.requestsPerSecond),
    p50Ms: mean((row) => row.p50Ms),
    p99Ms: mean((row) => row.p99Ms),
    note: [`${rounds.length} alternating rounds: ${rounds.map((row) => Math.round(row.requestsPerSecond)).join(', ')} req/s`, ...notes].join('; '),
  };
}

/**
 * Measures two warm servers in alternating rounds of BENCH_SECONDS / 2 each and answers one averaged
 * row per server. The machine is shared and drifts; alternating makes the drift fall on both alike
 * instead of on whichever would have run second.
 */
export async function alternateRounds(
  first: { name: string; load: LoadOptions },
  second: { name: string; load: LoadOptions },
  rounds: number,
): Promise<[BenchRow, BenchRow]> {
  const durationSeconds = Math.max(1, Number(process.env.BENCH_SECONDS ?? 10) / 2);
  const firstRounds: BenchRow[] = [];
  const secondRounds: BenchRow[] = [];
  for (let round = 0; round < rounds; round += 1) {
    firstRounds.push(await measure(first.name, { ...first.load, durationSeconds }));
    secondRounds.push(await measure(second.name, { ...second.load, durationSeconds }));
  }
  return [combineRounds(first.name, firstRounds), combineRounds(second.name, secondRounds)];
}

export function ratio(row: BenchRow, baseline: BenchRow): string {
  return (row.requestsPerSecond / Math.max(1, baseline.requestsPerSecond)).toFixed(2);
}

export function printTable(title: string, rows: BenchRow[]): void {
  const lines = [
    `\n## ${title}`,
    '| benchmark | req/s | p50 ms | p99 ms | note |',
    '|---|---:|---:|---:|---|',
    ...rows.map((row) => `| ${row.name} | ${Math.round(row.requestsPerSecond)} | ${row.p50Ms.toFixed(1)} | ${row.p99Ms.toFixed(1)} | ${row.note ?? ''} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** A suite prints its own table(s); run.ts calls the ones named on the command line, or all. */
export interface BenchSuite {
  name: string;
  run(): Promise<void>;
}
