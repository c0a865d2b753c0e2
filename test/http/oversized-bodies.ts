import net from 'node:net';
import { adminClient } from '../helpers/admin.js';
import { createBot } from '../helpers/bot.js';
import { multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The set-up of the oversized-body tests: a body far over the limit gets a 413 the client can read, whether it sends the body whole before
 * reading (a raw socket) or reads while it writes (Node's fetch): the server reads the rest of the
 * body and drops it before answering, so the client never meets a closed socket mid-write. Every
 * surface that takes a body, JSON, form and multipart, 40 MB each, 20 times in a row.
 */
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
  const response = await fetch(`${base}${target.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': body.contentType },
    body: new Uint8Array(body.payload.buffer as ArrayBuffer, body.payload.byteOffset, body.payload.length),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

export interface Scene {
  t: TestApp;
  base: string;
  port: number;
  targets: Target[];
  adminToken: string;
}

/** A listening app with a member, a channel, a bot, and every route of every surface that takes a body. */
export async function oversizedScene(): Promise<Scene> {
  const t = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: 'true' });
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const admin = adminClient(t);
  const userId = t.uniqueId('sender');
  await admin.createUser(userId);
  const channelId = t.uniqueId('room');
  await admin.createChannel(channelId, { userIds: [userId] });
  const minted = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 });
  const user: string = minted.json().accessToken;
  const bot = (await createBot(t, 'Uploader')).token;
  const targets: Target[] = [];
  const add = (surface: string, kinds: Kind[], path: string, token: string) => {
    for (const kind of kinds) targets.push({ surface, kind, path, token });
  };
  add('admin', ['json', 'form'], '/api/v2/channel', t.adminToken);
  add('admin', ['multipart'], '/api/v2/messages/files', t.adminToken);
  add('client', ['json', 'form'], `/client/v1/channels/${channelId}/messages`, user);
  add('client', ['multipart'], `/client/v1/channels/${channelId}/files`, user);
  add('bot', ['json', 'form'], '/bot/v1/direct/message', bot);
  add('bot', ['multipart'], '/bot/v1/direct/file', bot);
  add('sign-in', ['json', 'form'], '/oauth/token', user);
  add('notifications', ['json', 'form'], '/notifications/read', user);
  return { t, base, port: Number(new URL(base).port), targets, adminToken: t.adminToken };
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
