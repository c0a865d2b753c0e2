import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const available = fs.existsSync(REDIS_SERVER);
if (!available) process.stdout.write(`Redis loss tests skipped: ${REDIS_SERVER} is not installed.\n`);

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A throwaway redis-server (no persistence) on `port`, once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (accepted) return child;
    if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function waitFor<T>(what: string, probe: () => T | null | undefined | Promise<T | null | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface LogRecord {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/**
 * Redis lost under a running server, then back: each loss is logged once (a warning within 5 s), each
 * return once (info); /readyz says which dependency is missing; requests neither hang nor fail; a
 * stream on the same instance keeps receiving messages through the outbox poll. Redis is lost twice:
 * killed (its connections close at once), then paused (connections stay open and nothing answers, as
 * behind a network that drops packets).
 */
describe.skipIf(!available).each(testDatabases)('Redis lost while serving, on %s', (database) => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;
  let admin: ReturnType<typeof adminClient>;
  let userId: string;
  let channelId: string;
  let token: string;
  let socket: WebSocket;
  const texts: string[] = [];
  const lines: string[] = [];
  const records = (): LogRecord[] =>
    lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as LogRecord);
  const redisLines = (level: number) => records().filter((record) => record.level === level && typeof record.redis === 'string');

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    t = await startTestApp(database, { REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' }, { logStream: { write: (line) => void lines.push(line) } });
    admin = adminClient(t);
    userId = t.uniqueId('lena');
    await admin.createUser(userId);
    channelId = t.uniqueId('outage');
    await admin.createChannel(channelId, { userIds: [userId] });
    token = (await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 600_000 })).token;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${token}`);
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { type: string; data: { data?: { text?: string } } };
      if (frame.type === 'message.created' && frame.data.data?.text) texts.push(frame.data.data.text);
    });
    await new Promise((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
  });
  afterAll(async () => {
    socket?.close();
    await t?.close();
    if (redis) {
      redis.kill('SIGCONT');
      await stopRedis(redis);
    }
  });

  /** A message through the admin API: answered within 2 s, and on this instance's stream within 5 s. */
  async function sendAndReceive(text: string): Promise<void> {
    const started = Date.now();
    const response = await admin.call('POST', '/api/v2/message', { channelId, userId, type: 'text', data: { text } });
    expect({ text, status: response.statusCode, fast: Date.now() - started < 2_000 }).toEqual({ text, status: 200, fast: true });
    await waitFor(`the frame "${text}"`, () => texts.includes(text) || null, 5_000);
  }

  /** The client API (its rate limits count in Redis, in memory meanwhile) answers without waiting on Redis. */
  async function clientAnswersAtOnce(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = Date.now();
      const me = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${token}` } });
      expect({ status: me.statusCode, fast: Date.now() - started < 2_000 }).toEqual({ status: 200, fast: true });
    }
  }

  async function expectReady(): Promise<void> {
    const body = await waitFor(
      'readiness',
      async () => {
        const response = await t.app.inject({ method: 'GET', url: '/readyz' });
        return response.statusCode === 200 ? response.json() : null;
      },
      5_000,
    );
    expect(body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
  }

  /** While Redis is lost: one warning within 5 s, 503 naming Redis, writes and the stream unaffected. */
  async function expectServingWithoutRedis(lostAt: number, warnings: number): Promise<void> {
    const warning = await waitFor('the warning', () => redisLines(40)[warnings - 1], 5_000);
    expect(Date.now() - lostAt).toBeLessThan(5_000);
    expect(warning.msg).toContain(`127.0.0.1:${port}`);
    const unready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(unready.statusCode).toBe(503);
    expect(unready.json()).toMatchObject({ status: 'error', code: 500000, checks: { database: 'ok', redis: 'unavailable' } });
    await sendAndReceive(`during-${warnings}`);
    await clientAnswersAtOnce();
    // Reconnection attempts go on meanwhile: still one warning for this loss, not one per attempt.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(redisLines(40)).toHaveLength(warnings);
  }

  it('killed: logs the loss once, answers 503 naming Redis, keeps delivering, and recovers', { timeout: 60_000 }, async () => {
    await expectReady();
    await sendAndReceive('before');
    const lostAt = Date.now();
    await stopRedis(redis);
    await expectServingWithoutRedis(lostAt, 1);

    redis = await startRedis(port);
    const recovered = await waitFor('the info line', () => redisLines(30)[0], 10_000);
    expect(recovered.msg).toContain('available again');
    await expectReady();
    await sendAndReceive('after');
    expect({ warnings: redisLines(40).length, returns: redisLines(30).length }).toEqual({ warnings: 1, returns: 1 });
  });

  it('paused (nothing answers): the same, and no request waits on it', { timeout: 60_000 }, async () => {
    const lostAt = Date.now();
    redis.kill('SIGSTOP');
    await expectServingWithoutRedis(lostAt, 2);

    redis.kill('SIGCONT');
    await waitFor('the second info line', () => redisLines(30)[1], 10_000);
    await expectReady();
    await sendAndReceive('after the pause');
    await clientAnswersAtOnce();
    expect({ warnings: redisLines(40).length, returns: redisLines(30).length }).toEqual({ warnings: 2, returns: 2 });
  });
});
