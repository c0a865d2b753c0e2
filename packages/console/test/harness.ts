import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { freshDatabase, runParley } from '../../../test/cli/processes.js';
import { freePort } from '../../../test/helpers/signin.js';

/**
 * The console's end-to-end harness: Parley as `npm start` runs it (a child process on a fresh SQLite
 * directory or PostgreSQL database, its console build served at /console), real HTTP for set-up
 * calls, and Debian's Chromium driving the console.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
const REPO = path.resolve(import.meta.dirname, '../../..');

export interface Server {
  url: string;
  /** What the server printed before it served. */
  banner: string;
  env: Record<string, string>;
  admin(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  client(token: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  stop(): Promise<void>;
}

async function call(base: string, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
}

function waitForBanner(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start within 60 s: ${out}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // The banner is one write once the server listens: whole when its admin-token line is in and it ends a line.
      if (/admin token/.test(out) && out.endsWith('\n')) {
        clearTimeout(timer);
        resolve(out);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before serving: ${out}`));
    });
  });
}

/** Starts Parley on a fresh database, listening where PUBLIC_URL says (the console's redirect URI uses it). */
export async function startServer(database: 'sqlite' | 'postgres'): Promise<Server> {
  const fresh = await freshDatabase(database);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminToken = randomBytes(24).toString('hex');
  const env = { ...fresh.env, PUBLIC_URL: url, PARLEY_ADMIN_TOKEN: adminToken };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      await exited;
    }
    await fresh.close();
  };
  const banner = await waitForBanner(child).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    url,
    banner,
    env,
    admin: (method, path, body) => call(url, adminToken, method, path, body),
    client: (token, method, path, body) => call(url, token, method, path, body),
    stop,
  };
}

/** `parley users create-admin`, as the README's first-run step says, against the server's database. */
export async function createNetworkAdmin(server: Server, username: string, password: string): Promise<string> {
  const run = await runParley(['users', 'create-admin', '--username', username, '--password', password], server.env);
  if (run.code !== 0) throw new Error(`create-admin: ${run.code} ${run.stdout}${run.stderr}`);
  return run.stdout;
}

/** A user with a password and an access token for the client API. */
export async function createPerson(server: Server, userId: string, fields: Record<string, unknown> = {}) {
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const created = await server.admin('PUT', '/api/v2/users', { userId, username: userId, password, displayName: userId, ...fields });
  if (created.status !== 200) throw new Error(`create ${userId}: ${created.status} ${JSON.stringify(created.json)}`);
  const minted = await server.admin('POST', `/api/v2/users/${userId}/tokens`, {});
  if (minted.status !== 200) throw new Error(`token of ${userId}: ${minted.status} ${JSON.stringify(minted.json)}`);
  return { userId, username: userId, password, token: (minted.json as { accessToken: string }).accessToken };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Opens the console and signs in through Parley's login page, as a person does. */
export async function signInThroughLoginPage(page: Page, server: Server, username: string, password: string): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.getByRole('button', { name: 'Sign in with Parley' }).click();
  await page.waitForURL((url) => url.pathname === '/login');
  await page.fill('#username', username);
  await page.fill('#password', password);
  await Promise.all([
    page.waitForURL((url) => url.pathname.startsWith('/console/') && !url.pathname.startsWith('/console/callback')),
    page.click('button[type=submit]'),
  ]);
}

/** Signs in by pasting the server's admin token, as automation users do. */
export async function signInWithAdminToken(page: Page, server: Server): Promise<void> {
  await page.goto(`${server.url}/console/login`);
  await page.getByLabel('Admin token').fill(server.env.PARLEY_ADMIN_TOKEN as string);
  await page.getByRole('button', { name: 'Use token' }).click();
  await page.getByRole('navigation', { name: 'Console screens' }).waitFor();
}
