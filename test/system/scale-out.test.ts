import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BuiltApp } from '../../src/app.js';
import { createRedisBus } from '../../src/events/bus.js';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ready = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
if (!ready) process.stdout.write('scale-out tests skipped: they need TEST_DATABASE_URL and TEST_REDIS_URL.\n');

describe.skipIf(!ready)('two instances on one PostgreSQL and one Redis', () => {
  let a: TestApp;
  let b: BuiltApp;

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL as string };
    a = await startTestApp('postgres', env);
    // B never polls on its own: only the Redis wake-up from A can bring it A's events quickly.
    b = await a.startPeer(env, { relayPollMs: 3_600_000 });
  });
  afterAll(async () => {
    await a?.close();
  });

  it('delivers an event committed on instance A to a socket held by instance B', async () => {
    const admin = adminClient(a);
    const userId = a.uniqueId('nina');
    await admin.createUser(userId);
    const { token } = await createTokensService({ db: a.storage.db, clock: a.clock }).issue({ kind: 'user', userId, expiresInMs: 60_000 });
    const address = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${token}`);
    await new Promise((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
    const frame = new Promise<{ type: string; data: { channelId: string } }>((resolve) => socket.once('message', (raw) => resolve(JSON.parse(raw.toString()))));
    const channelId = a.uniqueId('across');
    await admin.createChannel(channelId, { userIds: [userId] });
    const received = await Promise.race([frame, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000))]);
    expect(received).toMatchObject({ type: 'member.added', data: { channelId } });
    socket.close();
  });
});

/**
 * The whole path across three instances on one PostgreSQL and one Redis: the admin creates on
 * instance 1, a bot sends on instance 2, a user receives on instance 3's socket, the tray fills once
 * (each event handled once per consumer, whichever instance claims it), and a bot's rate limit counts
 * its requests on every instance against one budget.
 */
describe.skipIf(!ready)('three instances on one PostgreSQL and one Redis', () => {
  let one: TestApp;
  let two: BuiltApp;
  let three: BuiltApp;
  const BOT_LIMIT = 4;

  beforeAll(async () => {
    const env = {
      REDIS_URL: process.env.TEST_REDIS_URL as string,
      PARLEY_TRAY_ENABLED: '1',
      PARLEY_BOT_RATE_LIMIT: String(BOT_LIMIT),
      PARLEY_BOT_RATE_WINDOW_MS: '2000',
    };
    one = await startTestApp('postgres', env);
    two = await one.startPeer(env);
    // Instance 3 never polls on its own: only Redis wake-ups bring it the others' events quickly.
    three = await one.startPeer(env, { relayPollMs: 3_600_000 });
  });
  afterAll(async () => {
    await one?.close();
  });

  const on = (app: BuiltApp, method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
    app.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  async function botWithToken(app: BuiltApp, admin: ReturnType<typeof adminClient>): Promise<{ userId: string; token: string }> {
    const bot = (await admin.call('POST', '/api/v2/bots', { displayName: 'Relay bot' })).json() as { userId: string; clientId: string; clientSecret: string };
    const granted = await app.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${bot.clientId}:${bot.clientSecret}`).toString('base64')}`,
      },
      payload: 'grant_type=client_credentials&scope=bot',
    });
    expect(granted.statusCode, granted.body).toBe(200);
    return { userId: bot.userId, token: (granted.json() as { access_token: string }).access_token };
  }

  it('carries a bot message from instance 2 to a socket on instance 3, in a group the admin made on instance 1', async () => {
    const admin = adminClient(one);
    const userId = one.uniqueId('reader');
    await admin.createUser(userId);
    const { token } = await createTokensService({ db: one.storage.db, clock: one.clock }).issue({ kind: 'user', userId, expiresInMs: 60_000 });
    const bot = await botWithToken(two, admin);
    const groupId = one.uniqueId('group');
    await admin.createChannel(groupId, { userIds: [userId, bot.userId] });

    const address = await three.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${token}`);
    const frames: Array<{ id: number; type: string; data: { channelId?: string; message?: { data?: { text?: string } } } }> = [];
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString())));
    await new Promise((resolve, reject) => {
      socket.on('open', resolve);
      socket.on('error', reject);
    });
    const sent = await on(two, 'POST', '/bot/v1/group/message', bot.token, { gid: groupId, message: { type: 'text', data: 'hello from instance 2' } });
    expect(sent.statusCode, sent.body).toBe(200);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !frames.some((frame) => frame.type === 'message.created')) await new Promise((resolve) => setTimeout(resolve, 20));
    const created = frames.find((frame) => frame.type === 'message.created');
    if (!created) process.stdout.write(`frames: ${JSON.stringify(frames)}\n`);
    expect(created?.data.channelId).toBe(groupId);
    expect(JSON.stringify(created?.data)).toContain('hello from instance 2');
    socket.close();
  });

  it('fills the tray once whichever instance consumes, and counts a bot against one budget on every instance', async () => {
    const admin = adminClient(one);
    const tokens = createTokensService({ db: one.storage.db, clock: one.clock });
    const author = one.uniqueId('author');
    const fan = one.uniqueId('fan');
    await admin.createUser(author, { displayName: 'Author' });
    await admin.createUser(fan, { displayName: 'Fan' });
    const authorToken = (await tokens.issue({ kind: 'user', userId: author, expiresInMs: 60_000 })).token;
    const fanToken = (await tokens.issue({ kind: 'user', userId: fan, expiresInMs: 60_000 })).token;

    const post = await on(two, 'POST', '/client/v1/posts', authorToken, { text: 'written on instance 2' });
    expect(post.statusCode, post.body).toBe(200);
    const { postId } = post.json() as { postId: string };
    expect((await on(one, 'POST', `/client/v1/posts/${postId}/reactions`, fanToken, { reactionName: 'like' })).statusCode).toBe(200);
    expect((await on(two, 'POST', `/client/v1/posts/${postId}/comments`, fanToken, { text: 'and a comment' })).statusCode).toBe(200);

    let records: Array<{ verb: string; targetId: string; actorsCount: number }> = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const history = await on(three, 'GET', '/notifications/history', authorToken);
      if (history.statusCode === 200) {
        records = (history.json() as { data: typeof records }).data;
        if (records.length >= 2) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    // One record per verb and target, each with the one actor: no instance handled an event twice.
    expect(records.map((record) => record.verb).sort()).toEqual(['comment', 'like']);
    for (const record of records) expect(record.actorsCount).toBe(1);

    // The bot's budget is BOT_LIMIT per window across all three instances, not per instance.
    const bot = await botWithToken(one, admin);
    const groupId = one.uniqueId('limited');
    await admin.createChannel(groupId, { userIds: [bot.userId] });
    const burst = await Promise.all(
      [one, two, three, one, two, three, one, two, three].map((app, n) =>
        on(app, 'POST', '/bot/v1/group/message', bot.token, { gid: groupId, message: { type: 'text', data: `burst ${n}` } }),
      ),
    );
    const accepted = burst.filter((response) => response.statusCode === 200).length;
    const limited = burst.filter((response) => response.statusCode === 429);
    // Per-instance counting would let all nine through (three per instance, under the limit of four).
    expect(accepted).toBe(BOT_LIMIT);
    expect(limited.length).toBe(burst.length - accepted);
    expect(limited[0]?.json()).toMatchObject({ code: 400311 });
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe.skipIf(!ready)('the Redis bus', () => {
  it('delivers a publish to every instance of the deployment that subscribed right after starting, and to no other deployment', async () => {
    const url = process.env.TEST_REDIS_URL as string;
    const run = `${Date.now()}${Math.random().toString(16).slice(2)}`;
    const deployment = { url, namespace: `parley:test-${run}:` };
    const buses = Array.from({ length: 20 }, () => createRedisBus(deployment));
    // Another deployment on the same Redis, listening to the same topic.
    const neighbour = createRedisBus({ url, namespace: `parley:test-other-${run}:` });
    const topic = 'outbox';
    const received = new Set<number>();
    const neighbourHeard: string[] = [];
    try {
      // Subscribing at once, before each connection is up, is what every instance does at start.
      await Promise.all([
        ...buses.map((bus, n) => bus.subscribe(topic, () => received.add(n))),
        neighbour.subscribe(topic, (message) => neighbourHeard.push(message)),
      ]);
      const publisher = createRedisBus(deployment);
      await publisher.publish(topic, 'wake');
      const deadline = Date.now() + 3000;
      while (received.size < buses.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // The neighbour would have heard by now: one Redis server delivers a publish to all its subscribers at once.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await publisher.close();
      expect(received.size).toBe(buses.length);
      expect(neighbourHeard).toEqual([]);
    } finally {
      await Promise.all([...buses, neighbour].map((bus) => bus.close()));
    }
  });
});
