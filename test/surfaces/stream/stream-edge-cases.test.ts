import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Frame {
  id: number;
  type: string;
  data: Record<string, unknown> & { channelId?: string; channel?: { displayName?: string } };
}

function openStream(url: string) {
  return new Promise<{ socket: WebSocket; frames: Frame[]; closed: Promise<number> }>((resolve, reject) => {
    const socket = new WebSocket(url);
    const frames: Frame[] = [];
    const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Frame));
    socket.on('open', () => resolve({ socket, frames, closed }));
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(test: () => boolean, ms = 5000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (test()) return true;
    await sleep(20);
  }
  return test();
}

/**
 * Stream and client actions at their edges: the caller's own messages are not unread, a resume
 * position past every event, a large backlog for a client that reads, and the dot reaction names.
 */
describe.each(testDatabases)('stream and client actions at their edges on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let base: string;
  let http: string;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    http = await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = http.replace('http', 'ws');
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, token, as };
  }

  const maxOutboxId = async () =>
    Number(
      (
        await t.storage.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirstOrThrow()
      ).max,
    );

  it('does not count the caller own messages as unread', async () => {
    const ann = await userWithToken('ann');
    const channelId = t.uniqueId('own');
    await admin.createChannel(channelId, { userIds: [ann.userId] });
    for (let i = 0; i < 3; i++) {
      const sent = await ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `mine ${i}` } });
      expect(sent.statusCode, sent.body).toBe(200);
    }
    const listed = (await ann.as('GET', '/client/v1/channels'))
      .json()
      .channels.find((c: { channel: { channelId: string } }) => c.channel.channelId === channelId);
    expect(listed.unreadCount).toBe(0);
  });

  it('closes a stream resumed from past the newest event with 4009 (resync), rather than holding back every frame', async () => {
    const cy = await userWithToken('cy');
    const channelId = t.uniqueId('future');
    await admin.createChannel(channelId, { userIds: [cy.userId] });
    await t.events.relay.flush();
    const last = await maxOutboxId();
    const stream = await openStream(`${base}/client/v1/stream?token=${cy.token}&since=${last + 1_000_000}`);
    let closeCode: number | null = null;
    void stream.closed.then((code) => {
      closeCode = code;
    });
    await sleep(100);
    await admin.call('POST', '/api/v2/channel/displayName', { channelId, displayName: 'hello' });
    await until(() => stream.frames.length > 0 || closeCode !== null, 2000);
    expect({ frames: stream.frames.length, closeCode }).toEqual({ frames: 0, closeCode: 4009 });
    stream.socket.close();
  });

  it('a healthy client resuming 60 large custom messages (~5 MB) gets them all on one connection', async () => {
    const fay = await userWithToken('fay');
    const channelId = t.uniqueId('big');
    await admin.createChannel(channelId, { userIds: [fay.userId] });
    await t.events.relay.flush();
    const since = await maxOutboxId();
    for (let i = 0; i < 60; i++) {
      const sent = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { n: i, blob: 'y'.repeat(90_000) } });
      expect(sent.statusCode).toBe(200);
    }
    const stream = await openStream(`${base}/client/v1/stream?token=${fay.token}&since=${since}`);
    let closeCode: number | null = null;
    void stream.closed.then((code) => {
      closeCode = code;
    });
    await until(() => stream.frames.length >= 60 || closeCode !== null, 20_000);
    await sleep(300);
    expect({ received: stream.frames.length, closeCode }).toEqual({ received: 60, closeCode: null });
    stream.socket.close();
  }, 60_000);

  it('a connected, reading client is not cut off by a burst of 30 large messages posted at once', async () => {
    const gus = await userWithToken('gus');
    const channelId = t.uniqueId('burst');
    await admin.createChannel(channelId, { userIds: [gus.userId] });
    await t.events.relay.flush();
    const stream = await openStream(`${base}/client/v1/stream?token=${gus.token}`);
    let closeCode: number | null = null;
    void stream.closed.then((code) => {
      closeCode = code;
    });
    await sleep(100);
    const sent = await Promise.all(
      Array.from({ length: 30 }, (_, i) => admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { n: i, blob: 'z'.repeat(90_000) } })),
    );
    expect(sent.every((r) => r.statusCode === 200)).toBe(true);
    await until(() => stream.frames.filter((f) => f.type === 'message.created').length >= 30 || closeCode !== null, 10_000);
    await sleep(300);
    const got = stream.frames.filter((f) => f.type === 'message.created').length;
    expect({ got, closeCode }).toEqual({ got: 30, closeCode: null });
    stream.socket.close();
  }, 60_000);

  it('refuses the reaction names . and .., which no HTTP client can name in a URL path to remove them', async () => {
    const ed = await userWithToken('ed');
    const channelId = t.uniqueId('dots');
    await admin.createChannel(channelId, { userIds: [ed.userId] });
    const messageId = (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' } })).json().data.messages[0].messageId;
    for (const name of ['.', '..']) {
      const added = await fetch(`${http}/client/v1/messages/${messageId}/reactions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ed.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reactionName: name }),
      });
      expect([name, added.status]).toEqual([name, 422]);
    }
    const message = (await admin.call('GET', `/api/v2/message/${messageId}`)).json().message;
    expect(message.reactionsCount).toBe(0);
  });
});
