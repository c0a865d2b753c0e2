import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import { type BenchRow, type BenchSuite, alternateRounds, type LoadOptions, measure, printTable, ratio, startParley, startScript } from '../lib.js';

/**
 * The token endpoint, next to a widely used OpenID provider: client_credentials grants per second
 * beside panva's oidc-provider (in-memory, one client_credentials client), and authorization_code
 * exchanges, each code single-use. Parley persists every token (SQLite in the bench's DATA_DIR).
 *
 * Fairness: each server is one Node process pinned to CPU 0 while it runs; the load generator is
 * pinned to CPU 1 (taskset), so "one core" means the same core for both. Both are single-threaded.
 */
const CODES = Number(process.env.BENCH_CODES ?? 15_000);
const CONNECTIONS = 50;

/** Pins this process (all its threads); children spawned meanwhile inherit it. False when it cannot. */
function pinSelf(cpus: string): boolean {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Starts a server on CPU 0, then moves the load generator back to CPU 1. */
async function onCoreZero<T>(start: () => Promise<T>): Promise<T> {
  pinSelf('0');
  try {
    return await start();
  } finally {
    pinSelf('1');
  }
}

const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function call(url: string, init: RequestInit): Promise<Response> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  if (response.status >= 400) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return response;
}

/** A person, a client and a signed-in browser cookie on the running server; then `count` fresh codes. */
async function mintCodes(base: string, adminToken: string, count: number) {
  const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const userId = `bench-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await call(`${base}/api/v2/users`, {
    method: 'PUT',
    headers: admin,
    body: JSON.stringify({ userId, username: userId, password, firstname: 'Bench', lastname: 'User' }),
  });
  const redirectUri = 'https://bench.example/callback';
  const client = (await (
    await call(`${base}/api/v2/oauth/clients`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench', redirectUris: [redirectUri] }) })
  ).json()) as {
    clientId: string;
    clientSecret: string;
  };
  const page = await call(`${base}/login`, {});
  const csrfCookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const login = await call(`${base}/login`, {
    method: 'POST',
    headers: { cookie: csrfCookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, username: userId, password }).toString(),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: 'openid',
    state: 'bench',
  }).toString();
  const codes: string[] = [];
  const started = performance.now();
  const worker = async () => {
    while (codes.length < count) {
      const response = await call(`${base}/oauth/authorize?${query}`, { headers: { cookie } });
      const code = new URL(response.headers.get('location') ?? '').searchParams.get('code');
      if (!code) throw new Error('authorize answered without a code');
      codes.push(code);
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return { client, redirectUri, codes, authorizeSeconds: (performance.now() - started) / 1000 };
}

/** Runs exactly codes.length exchanges (each code works once), as fast as the server answers. */
async function measureExchanges(base: string, minted: Awaited<ReturnType<typeof mintCodes>>): Promise<BenchRow> {
  const queue = [...minted.codes];
  const result = await autocannon({
    url: `${base}/oauth/token`,
    method: 'POST',
    connections: CONNECTIONS,
    amount: queue.length,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(minted.client.clientId, minted.client.clientSecret) },
    requests: [
      {
        setupRequest: (request: autocannon.Request) => ({
          ...request,
          body: new URLSearchParams({ grant_type: 'authorization_code', code: queue.pop() ?? 'exhausted', redirect_uri: minted.redirectUri }).toString(),
        }),
      },
    ],
  });
  const errors = result.non2xx + result.errors;
  return {
    name: 'Parley authorization_code exchange',
    requestsPerSecond: result.requests.total / Math.max(0.001, result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    note: `${result.requests.total} single-use codes (minted at ${Math.round(minted.codes.length / minted.authorizeSeconds)}/s via /oauth/authorize); access + refresh token persisted, HS256 ID token${errors > 0 ? `; ${errors} non-2xx/errors` : ''}`,
  };
}

export const identitySuite: BenchSuite = {
  name: 'identity',
  async run() {
    const pinned = pinSelf('1');
    const form = 'grant_type=client_credentials&scope=bot';

    const baselineId = 'bench-bot';
    const baselineSecret = randomBytes(24).toString('base64url');
    const provider = await onCoreZero(() =>
      startScript('bench/baselines/oidc-provider.ts', { BENCH_CLIENT_ID: baselineId, BENCH_CLIENT_SECRET: baselineSecret }),
    );
    try {
      const parley = await onCoreZero(() => startParley());
      try {
        const headers = { authorization: `Bearer ${parley.adminToken}`, 'content-type': 'application/json' };
        const bot = (await (
          await call(`${parley.url}/api/v2/bots`, { method: 'POST', headers, body: JSON.stringify({ displayName: 'bench bot' }) })
        ).json()) as {
          clientId: string;
          clientSecret: string;
        };
        const providerLoad: LoadOptions = {
          url: `${provider.url}/token`,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(baselineId, baselineSecret) },
          body: form,
          connections: CONNECTIONS,
        };
        const parleyLoad: LoadOptions = {
          url: `${parley.url}/oauth/token`,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(bot.clientId, bot.clientSecret) },
          body: form,
          connections: CONNECTIONS,
        };
        // Both warmed up (JIT, caches), then measured in alternating rounds on the same core, so a
        // drift in the shared machine's load falls on both alike instead of on whichever ran second.
        await measure('warm-up', { ...providerLoad, durationSeconds: 2 });
        await measure('warm-up', { ...parleyLoad, durationSeconds: 2 });
        const [baseline, grants] = await alternateRounds(
          { name: 'oidc-provider client_credentials (in-memory)', load: providerLoad },
          { name: 'Parley client_credentials (tokens persisted, SQLite)', load: parleyLoad },
          3,
        );
        const target = Number(ratio(grants, baseline)) >= 1.5 ? 'meets' : 'MISSES';
        grants.note = `${grants.note}; ratio to oidc-provider ${ratio(grants, baseline)} (${target} the 1.5x target)`;

        const minted = await mintCodes(parley.url, parley.adminToken, CODES);
        const exchanges = await measureExchanges(parley.url, minted);
        printTable(
          `Token endpoint (${CONNECTIONS} connections; servers ${pinned ? 'pinned to CPU 0, load generator to CPU 1' : 'not pinned: taskset unavailable'})`,
          [baseline, grants, exchanges],
        );
      } finally {
        await parley.stop();
      }
    } finally {
      await provider.stop();
    }
  },
};
