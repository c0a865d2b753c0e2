import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { multipartBody } from '../helpers/media.js';

/**
 * The set-up of the oversized-body tests: a body far over the limit gets a 413 the client can read, whether it sends the body whole before
 * reading (a raw socket) or reads while it writes (Node's fetch): the server reads the rest of the
 * body and drops it before answering, so the client never meets a closed socket mid-write. Every
 * surface that takes a body, JSON, form and multipart, 40 MB each, 20 times in a row.
 */
const REPO = path.resolve(import.meta.dirname, '../..');

export const SIZE = 40 * 1024 * 1024;
export const TIMES = 20;

export type Kind = 'json' | 'form' | 'multipart';
export interface Target {
  surface: string;
  kind: Kind;
  path: string;
  token: string;
}

export const BODIES: Record<Kind, () => { payload: Buffer; contentType: string }> = {
  json: () => {
    const payload = Buffer.alloc(SIZE, 0x20);
    payload.write('{"text":"', 0);
    payload.write('"}', SIZE - 2);
    return { payload, contentType: 'application/json' };
  },
  form: () => {
    const payload = Buffer.alloc(SIZE, 0x61);
    payload.write('text=', 0);
    return { payload, contentType: 'application/x-www-form-urlencoded' };
  },
  multipart: () =>
    multipartBody([['caption', 'big']], [{ name: 'file', fileName: 'big.bin', contentType: 'application/octet-stream', data: Buffer.alloc(SIZE, 7) }]),
};

export interface Answer {
  status: number;
  body: unknown;
}

/** Writes the whole request on a socket of its own, then reads the answer to the end. */
export function sendWhole(port: number, target: Target, body: { payload: Buffer; contentType: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 30 s'));
    }, 30_000);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('utf8');
      const [head = '', rest = ''] = text.split('\r\n\r\n');
      const status = Number(head.split(' ')[1]);
      try {
        resolve({ status, body: JSON.parse(rest) });
      } catch {
        reject(new Error(`unreadable answer: ${text.slice(0, 200)}`));
      }
    });
    const headers = [
      `POST ${target.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Authorization: Bearer ${target.token}`,
      `Content-Type: ${body.contentType}`,
      `Content-Length: ${body.payload.length}`,
      'Connection: close',
    ];
    socket.write(`${headers.join('\r\n')}\r\n\r\n`);
    socket.write(body.payload);
  });
}

export async function sendWithFetch(base: string, target: Target, body: { payload: Buffer; contentType: string }): Promise<Answer> {
  const bytes = new Uint8Array(body.payload.buffer as ArrayBuffer, body.payload.byteOffset, body.payload.length);
  const init: RequestInit & { duplex: 'half' } = {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': body.contentType, 'content-length': String(bytes.length) },
    // The body as one stream chunk with its length: on the wire the same request as a Uint8Array body
    // (Content-Length, no chunking), which Node 20's fetch sends about four times slower.
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
    duplex: 'half',
    signal: AbortSignal.timeout(30_000),
  };
  const response = await fetch(`${base}${target.path}`, init);
  return { status: response.status, body: await response.json() };
}

export interface Scene {
  base: string;
  port: number;
  targets: Target[];
  adminToken: string;
  close(): Promise<void>;
}

/** Starts Parley as `npm start` runs it, in a process of its own, and answers where it listens. */
async function startServer(env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
  return { base, child };
}

/** One call of the set-up, which must succeed. */
async function ok(base: string, token: string | null, method: string, path: string, body?: unknown, form?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = token === null ? {} : { authorization: token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  const response = await fetch(`${base}${path}`, { method, headers, body: form ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Parley in a process of its own (client and server then run on separate cores, as they do for a real
 * client), with a member, a channel, a bot, and every route of every surface that takes a body.
 */
export async function oversizedScene(): Promise<Scene> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-oversized-'));
  const adminToken = randomBytes(32).toString('hex');
  const { base, child } = await startServer({ DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: adminToken, PARLEY_TRAY_ENABLED: 'true' });
  const asAdmin = `Bearer ${adminToken}`;
  const userId = `sender-${randomBytes(4).toString('hex')}`;
  await ok(base, asAdmin, 'PUT', '/api/v2/users', { userId });
  const channelId = `room-${randomBytes(4).toString('hex')}`;
  await ok(base, asAdmin, 'POST', '/api/v2/channel', { channelId, type: 'standard', userIds: [userId] });
  const user = String((await ok(base, asAdmin, 'POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 })).accessToken);
  const created = await ok(base, asAdmin, 'POST', '/api/v2/bots', { displayName: 'Uploader' });
  const basic = `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString('base64')}`;
  const bot = String((await ok(base, basic, 'POST', '/oauth/token', undefined, 'grant_type=client_credentials&scope=bot')).access_token);
  const targets: Target[] = [];
  const add = (surface: string, kinds: Kind[], path: string, token: string) => {
    for (const kind of kinds) targets.push({ surface, kind, path, token });
  };
  add('admin', ['json', 'form'], '/api/v2/channel', adminToken);
  add('admin', ['multipart'], '/api/v2/messages/files', adminToken);
  add('client', ['json', 'form'], `/client/v1/channels/${channelId}/messages`, user);
  add('client', ['multipart'], `/client/v1/channels/${channelId}/files`, user);
  add('bot', ['json', 'form'], '/bot/v1/direct/message', bot);
  add('bot', ['multipart'], '/bot/v1/direct/file', bot);
  add('sign-in', ['json', 'form'], '/oauth/token', user);
  add('notifications', ['json', 'form'], '/notifications/read', user);
  const close = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { base, port: Number(new URL(base).port), targets, adminToken, close };
}

/** Sends each kind of body TIMES in a row to every target of that kind; the answers as `status code`, by target. */
export async function sendEveryBody(scene: Scene, kind: Kind, send: (target: Target, body: { payload: Buffer; contentType: string }) => Promise<Answer>) {
  const body = BODIES[kind]();
  const outcomes: Record<string, string[]> = {};
  for (const target of scene.targets.filter((candidate) => candidate.kind === kind)) {
    const answers: string[] = [];
    for (let i = 0; i < TIMES; i += 1) {
      const answer = await send(target, body);
      answers.push(`${answer.status} ${(answer.body as { code?: number }).code}`);
    }
    outcomes[`${target.surface} ${target.path}`] = answers;
  }
  return outcomes;
}

export const EVERY_TIME_413 = Array.from({ length: TIMES }, () => '413 500000');

type Send = (scene: Scene, target: Target, body: { payload: Buffer; contentType: string }) => Promise<Answer>;

/** Every kind of body, TIMES in a row to every surface that takes it, sent by `how`: a readable 413 each time. */
export function describeOversizedBodies(how: string, send: Send): void {
  describe(`bodies over the limit, sent by ${how}`, () => {
    let scene: Scene;
    beforeAll(async () => {
      scene = await oversizedScene();
    });
    afterAll(async () => {
      await scene.close();
    });

    for (const kind of ['json', 'form', 'multipart'] as Kind[]) {
      it(`answers ${TIMES} readable 413 envelopes in a row to ${kind} bodies of ${SIZE / 2 ** 20} MB, on every surface that takes them`, async () => {
        const outcomes = await sendEveryBody(scene, kind, (target, body) => send(scene, target, body));
        expect(Object.keys(outcomes).length).toBeGreaterThanOrEqual(kind === 'multipart' ? 3 : 5);
        for (const [target, answers] of Object.entries(outcomes)) expect(answers, target).toEqual(EVERY_TIME_413);
      }, 240_000);
    }
  });
}
