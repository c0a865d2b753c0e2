import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../../src/app.js';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A user with a token, calling the client API of `app` (another instance, in the shared-limit case). */
async function userOf(t: TestApp, prefix: string) {
  const userId = t.uniqueId(prefix);
  await adminClient(t).createUser(userId);
  const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
  const as = (method: Method, url: string, payload?: Record<string, unknown>, app: BuiltApp['app'] = t.app): Promise<LightMyRequestResponse> =>
    app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  return { userId, as };
}

async function channelFor(t: TestApp, ...userIds: string[]): Promise<string> {
  const channelId = t.uniqueId('busy');
  await adminClient(t).createChannel(channelId, { userIds });
  return channelId;
}

async function storedIn(t: TestApp, channelId: string): Promise<number> {
  const row = await t.storage.db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('channel_id', '=', channelId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** 429 / 400311 in the error envelope, with a Retry-After of whole seconds within the window. */
function expectLimited(response: LightMyRequestResponse, windowSeconds: number): void {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toMatchObject({ status: 'error', code: 400311 });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

const statuses = (responses: LightMyRequestResponse[]) => responses.map((response) => response.statusCode);

describe.each(testDatabases)('client API rate limits with the defaults on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(database);
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses one user 300 messages fired at once past the send budget (100 per 10 s), storing only the budget', async () => {
    const ann = await userOf(t, 'flooder');
    const channelId = await channelFor(t, ann.userId);
    const sends = await Promise.all(
      Array.from({ length: 300 }, (_, n) => ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `spam ${n}` } })),
    );
    expect(statuses(sends).filter((status) => status === 200)).toHaveLength(100);
    const refused = sends.filter((response) => response.statusCode !== 200);
    expect(refused).toHaveLength(200);
    for (const response of refused) expectLimited(response, 10);
    expect(await storedIn(t, channelId)).toBe(100);
    // Another user has a budget of their own.
    const bo = await userOf(t, 'bystander');
    await adminClient(t).call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [bo.userId] });
    expect((await bo.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'hi' } })).statusCode).toBe(200);
  });

  it('reads the limits from the environment, 0 turning a class off, and refuses bad values', () => {
    expect(loadConfig({}).clientRateLimits).toEqual({ windowMs: 10_000, send: 100, react: 200, flag: 30, read: 1000 });
    expect(
      loadConfig({
        PARLEY_CLIENT_RATE_WINDOW_MS: '60000',
        PARLEY_CLIENT_RATE_SEND: '5',
        PARLEY_CLIENT_RATE_REACT: '0',
        PARLEY_CLIENT_RATE_FLAG: '2',
        PARLEY_CLIENT_RATE_READ: '7',
      }).clientRateLimits,
    ).toEqual({ windowMs: 60_000, send: 5, react: 0, flag: 2, read: 7 });
    for (const [name, value] of [
      ['PARLEY_CLIENT_RATE_SEND', '-1'],
      ['PARLEY_CLIENT_RATE_READ', 'lots'],
      ['PARLEY_CLIENT_RATE_WINDOW_MS', '0'],
    ]) {
      expect(() => loadConfig({ [name as string]: value as string })).toThrow(ConfigError);
    }
  });
});

describe.each(testDatabases)('client API rate limits per route class on %s', (database) => {
  let t: TestApp;
  const LIMITS = {
    PARLEY_CLIENT_RATE_WINDOW_MS: '60000',
    PARLEY_CLIENT_RATE_SEND: '5',
    PARLEY_CLIENT_RATE_REACT: '3',
    PARLEY_CLIENT_RATE_FLAG: '2',
    PARLEY_CLIENT_RATE_READ: '6',
  };

  beforeAll(async () => {
    t = await startTestApp(database, LIMITS);
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts sends (messages, posts, comments) against one budget; reads and reactions keep theirs', async () => {
    const ann = await userOf(t, 'ann');
    const channelId = await channelFor(t, ann.userId);
    const said = await Promise.all(
      Array.from({ length: 3 }, (_, n) => ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `m${n}` } })),
    );
    expect(statuses(said)).toEqual([200, 200, 200]);
    const post = await ann.as('POST', '/client/v1/posts', { text: 'a post' });
    expect(post.statusCode, post.body).toBe(200);
    expect((await ann.as('POST', `/client/v1/posts/${post.json().postId}/comments`, { text: 'a comment' })).statusCode).toBe(200);
    expectLimited(await ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'one more' } }), 60);
    expectLimited(await ann.as('POST', '/client/v1/posts', { text: 'and a post' }), 60);
    expect(await storedIn(t, channelId)).toBe(3);

    const messageId = said[0]?.json().data.messages[0].messageId as string;
    expect((await ann.as('GET', `/client/v1/channels/${channelId}/messages`)).statusCode).toBe(200);
    expect((await ann.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
  });

  it('limits reactions, flags and reads each on their own budget', async () => {
    const bo = await userOf(t, 'bo');
    const channelId = await channelFor(t, bo.userId);
    const messageId = (await adminClient(t).call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'react to me' } })).json().data.messages[0]
      .messageId;

    const reactions = [];
    for (const name of ['a', 'b', 'c', 'd']) reactions.push(await bo.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: name }));
    expect(statuses(reactions).slice(0, 3)).toEqual([200, 200, 200]);
    expectLimited(reactions[3] as LightMyRequestResponse, 60);
    // Removing one is a reaction too.
    expectLimited(await bo.as('DELETE', `/client/v1/messages/${messageId}/reactions/a`), 60);

    const targets = await Promise.all([userOf(t, 'x'), userOf(t, 'y'), userOf(t, 'z')]);
    const flags = [];
    for (const target of targets) flags.push(await bo.as('POST', `/client/v1/users/${target.userId}/flag`));
    expect(statuses(flags).slice(0, 2)).toEqual([200, 200]);
    expectLimited(flags[2] as LightMyRequestResponse, 60);

    const reads = [];
    for (let n = 0; n < 6; n += 1)
      reads.push(
        await bo.as(
          n % 2 === 0 ? 'GET' : 'POST',
          n % 2 === 0 ? '/client/v1/me' : `/client/v1/channels/${channelId}/read`,
          n % 2 === 0 ? undefined : { segment: 1 },
        ),
      );
    expect(statuses(reads)).toEqual([200, 200, 200, 200, 200, 200]);
    expectLimited(await bo.as('GET', `/client/v1/channels/${channelId}/messages`), 60);
    // Sending is still open to the same user.
    expect((await bo.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'still here' } })).statusCode).toBe(200);
  });

  it('counts refused requests too, so a client looping on a bad request is slowed down', async () => {
    const cy = await userOf(t, 'cy');
    const bad = [];
    for (let n = 0; n < 6; n += 1) bad.push(await cy.as('POST', '/client/v1/channels/nowhere/messages', { type: 'text', data: { text: 'x' } }));
    expect(statuses(bad)).toEqual([404, 404, 404, 404, 404, 429]);
  });
});

describe.runIf(REDIS_URL && testDatabases.includes('postgres'))('client API rate limits shared through Redis', () => {
  it('counts one budget across two instances', async () => {
    const t = await startTestApp('postgres', { REDIS_URL: REDIS_URL as string, PARLEY_CLIENT_RATE_SEND: '4', PARLEY_CLIENT_RATE_WINDOW_MS: '60000' });
    try {
      const peer = await t.startPeer();
      const ann = await userOf(t, 'shared');
      const channelId = await channelFor(t, ann.userId);
      const answers = [];
      for (let n = 0; n < 6; n += 1) {
        const app = n % 2 === 0 ? t.app : peer.app;
        answers.push(await ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `m${n}` } }, app));
      }
      expect(statuses(answers)).toEqual([200, 200, 200, 200, 429, 429]);
      expectLimited(answers[5] as LightMyRequestResponse, 60);
      expect(await storedIn(t, channelId)).toBe(4);
    } finally {
      await t.close();
    }
  });
});
