import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { onInterrupt } from './interrupt.js';

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

/** This tree's root: the current code, and the directory the bench's own scripts are resolved from. */
export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Starts Parley in a child process (its own core), on a fresh SQLite data dir unless env says otherwise.
 * `root`: the tree whose src/main.ts runs (a worktree of another commit, with this tree's
 * node_modules linked in); this tree by default.
 */
/**
 * The benches load the client API from a handful of users as fast as it answers: its per-user rate
 * limits (a protection, measured by the tests) are off unless a suite sets them.
 */
const NO_CLIENT_RATE_LIMITS = { PARLEY_CLIENT_RATE_SEND: '0', PARLEY_CLIENT_RATE_REACT: '0', PARLEY_CLIENT_RATE_FLAG: '0', PARLEY_CLIENT_RATE_READ: '0' };

/** `nodeArguments`: extra node flags for the server process, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
export async function startParley(env: Record<string, string> = {}, options: { root?: string; nodeArguments?: string[] } = {}): Promise<RunningServer> {
  const root = options.root ?? ROOT;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const adminToken = randomBytes(32).toString('hex');
  const child = spawn(process.execPath, [...(options.nodeArguments ?? []), '--import', 'tsx', path.join(root, 'src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PARLEY_ADMIN_TOKEN: adminToken,
      ...NO_CLIENT_RATE_LIMITS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let serving = false;
  // Its requests then fail as connection errors; this says why.
  child.on('exit', (code, signal) => {
    if (serving) process.stderr.write(`bench: the server of ${root} exited (${code ?? signal}) while being measured\n`);
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      serving = false;
      await stopChild(child);
      await fs.promises.rm(dataDir, { recursive: true, force: true });
      forget();
    })());
  const forget = onInterrupt(() => {
    serving = false;
    child.kill('SIGKILL');
    return stop();
  });
  const url = await waitForAddress(child).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  serving = true;
  return { url, adminToken, dataDir, pid: child.pid ?? 0, stop };
}

/** Starts a node script that prints `listening <url>` on stdout (baselines). */
export async function startScript(script: string, env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = async () => {
    await stopChild(child);
    forget();
  };
  // SIGTERM, as when stopped normally: a baseline removes its own temp files then.
  const forget = onInterrupt(stop);
  const url = await waitForAddress(child).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url, stop };
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
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
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

function cannonOptions(options: LoadOptions): autocannon.Options {
  const makeBody = options.body;
  return {
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
  };
}

/** Drives load with autocannon; bounded in time. */
export async function measure(name: string, options: LoadOptions): Promise<BenchRow> {
  const result = await autocannon(cannonOptions(options));
  const errors = result.non2xx + result.errors;
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ...(errors > 0 ? { note: `${errors} non-2xx/errors` } : {}),
  };
}

/** One load run's raw figures, so that several runs can be pooled (a p99 over all their requests). */
export interface LoadSample {
  /** Responses of any status. */
  responses: number;
  /** Non-2xx responses plus connection errors and timeouts. */
  failures: number;
  seconds: number;
  latenciesMs: number[];
}

/** Like `measure`, but keeps every response's latency instead of autocannon's summary. */
export function sampleLoad(options: LoadOptions): Promise<LoadSample> {
  const latenciesMs: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(cannonOptions(options), (error: unknown, result) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      resolve({ responses: latenciesMs.length, failures: result.non2xx + result.errors, seconds: result.duration, latenciesMs });
    });
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      latenciesMs.push(responseTimeMs);
    });
  });
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; null where /proc is
 * absent. Per request, it measures work done rather than throughput, so it moves far less than req/s
 * when other programs share the machine.
 */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times, on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The nearest-rank percentile (`fraction` 0.99 for p99) of unsorted values; 0 when there are none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
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
