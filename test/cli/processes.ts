import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * The command line and the server as an operator runs them: real processes, their exit codes and what
 * they print. Shared by test/cli and test/startup.
 */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** How long the process ran, in milliseconds. */
  ms: number;
}

/** Variables of the test run that would change what Parley does; each test sets what it needs. */
const CLEARED = [
  'DATABASE_URL',
  'REDIS_URL',
  'PARLEY_ADMIN_TOKEN',
  'PARLEY_SECRET_KEY',
  'PARLEY_DEBUG',
  'LOG_LEVEL',
  'DATA_DIR',
  'PORT',
  'HOST',
  'PUBLIC_URL',
  'OIDC_ISSUER',
];

function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLEARED) delete base[name];
  return { ...base, ...env };
}

function collect(child: ChildProcess, timeoutMs: number): Promise<Finished> {
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `parley <args>` (bin/parley.mjs) to its end. */
export function runParley(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<Finished> {
  const child = spawn(process.execPath, ['bin/parley.mjs', ...args], { env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child, timeoutMs);
}

/** `npm start` (src/main.ts) until it exits; for starts that are meant to be refused. */
export function runServer(env: Record<string, string>, timeoutMs = 60_000): Promise<Finished> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: environment({ HOST: '127.0.0.1', PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, timeoutMs);
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-test-'));
}

/** The lines of a stream's text, without the empty one after the last newline. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** A fresh PostgreSQL database on TEST_DATABASE_URL's server, for one test file. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL as string;
  const name = `parley_cli_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
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

/** A data directory, plus a fresh PostgreSQL database for the postgres variant; `env` selects them. */
export async function freshDatabase(database: 'sqlite' | 'postgres'): Promise<{ env: Record<string, string>; dataDir: string; close: () => Promise<void> }> {
  const dataDir = tempDataDir();
  const postgres = database === 'postgres' ? await createPostgresDatabase() : null;
  return {
    env: { DATA_DIR: dataDir, ...(postgres ? { DATABASE_URL: postgres.url } : {}) },
    dataDir,
    close: async () => {
      await postgres?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set (the global set-up says so once). */
export const databases: ('sqlite' | 'postgres')[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
