import { createHmac } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../../src/app.js';
import { openStorage } from '../../../src/storage/database.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Bot webhooks through the running app: a bot created with a webhookUrl, a user's message sent with
 * the client API, the signed POST received by a local HTTP server, a 500 retried with the same event
 * id, and a delivery left pending by a closed app sent by the next app on the same database.
 */

interface Received {
  eventId: string;
  signature: string;
  body: string;
  status: number;
}

/** A bot's endpoint: answers 500 while `failing` says so, and to the first call whose body matches `failOnce`; else 200. */
async function startReceiver(options: { failOnce?: (body: string) => boolean } = {}) {
  const received: Received[] = [];
  const state = { failing: false, failedOnce: false };
  const waiters = new Set<() => void>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let status = state.failing ? 500 : 200;
      if (!state.failedOnce && options.failOnce?.(body)) {
        state.failedOnce = true;
        status = 500;
      }
      received.push({ eventId: String(request.headers['x-parley-event-id']), signature: String(request.headers['x-parley-signature']), body, status });
      response.writeHead(status).end();
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    state,
    /** Resolves once `test` holds; fails after `ms` with what came so far. */
    waitFor(test: (calls: Received[]) => boolean, ms = 10_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(received)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; received: ${JSON.stringify(received.map((call) => [call.eventId, call.status]))}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const sign = (body: string, secret: string): string => createHmac('sha256', secret).update(body, 'utf8').digest('base64');

interface WebhookBody {
  id: string;
  type: string;
  attempt: number;
  data: { messageId: string; channelId: string; userId: string; data: { text?: string } };
}

describe.each(testDatabases)('bot webhooks through the app on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    // Short backoff and poll so a retry comes within the test; the production defaults are 1 s and 1 s.
    t = await startTestApp(database, { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, { webhooks: { baseBackoffMs: 50, pollIntervalMs: 50 } });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function createBot(app: TestApp | BuiltApp, displayName: string, webhookUrl?: string) {
    const response = await app.app.inject({
      method: 'POST',
      url: '/api/v2/bots',
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: { displayName, ...(webhookUrl ? { webhookUrl } : {}) },
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ userId: string; clientSecret: string }>();
  }

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const response = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 });
    expect(response.statusCode).toBe(200);
    return { userId, token: response.json<{ accessToken: string }>().accessToken };
  }

  async function sendAsUser(app: TestApp | BuiltApp, token: string, channelId: string, text: string): Promise<string> {
    const response = await app.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/messages`,
      headers: { authorization: `Bearer ${token}` },
      payload: { type: 'text', data: { text } },
    });
    expect(response.statusCode, response.body).toBe(200);
    const messageId = response.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId;
    expect(messageId).toBeTypeOf('string');
    return messageId as string;
  }

  it("posts a user's message to the member bot, signed with its client secret, and retries a 500 with the same event id", async () => {
    const receiver = await startReceiver({ failOnce: (body) => body.includes('hello bot') });
    try {
      const bot = await createBot(t, 'Hooked bot', receiver.url);
      const quietBot = await createBot(t, 'Bot without a webhook');
      const user = await userWithToken('writer');
      const channelId = t.uniqueId('hooked');
      await admin.createChannel(channelId, { userIds: [bot.userId, quietBot.userId, user.userId] });

      const first = await sendAsUser(t, user.token, channelId, 'hello bot');
      // An admin's message is not a user's: it is not posted to the bot.
      const byAdmin = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'from the operator' } });
      expect(byAdmin.statusCode).toBe(200);
      const second = await sendAsUser(t, user.token, channelId, 'second words');

      await receiver.waitFor((calls) => calls.filter((call) => call.status === 200).length >= 2);
      const bodies = receiver.received.map((call) => JSON.parse(call.body) as WebhookBody);
      // Each call is signed over its exact body with the bot's client secret, and with nothing else.
      for (const call of receiver.received) {
        expect(call.signature).toBe(sign(call.body, bot.clientSecret));
        expect(call.signature).not.toBe(sign(call.body, quietBot.clientSecret));
      }
      expect(new Set(bodies.map((body) => body.data.messageId))).toEqual(new Set([first, second]));
      expect(bodies.every((body) => body.type === 'message.created' && body.data.channelId === channelId && body.data.userId === user.userId)).toBe(true);
      expect(bodies.find((body) => body.data.messageId === first)?.data.data.text).toBe('hello bot');

      // The first call failed with 500; the retry carries the same event id, the next attempt number.
      const firstCalls = receiver.received.filter((_call, index) => bodies[index]?.data.messageId === first);
      expect(firstCalls.map((call) => call.status)).toEqual([500, 200]);
      expect(firstCalls[0]?.eventId).toBe(firstCalls[1]?.eventId);
      expect(firstCalls.map((call) => (JSON.parse(call.body) as WebhookBody).attempt)).toEqual([1, 2]);
      expect(JSON.parse(firstCalls[0]?.body ?? '{}').id).toBe(firstCalls[0]?.eventId);
      const secondCalls = receiver.received.filter((_call, index) => bodies[index]?.data.messageId === second);
      expect(secondCalls.map((call) => call.status)).toEqual([200]);
      expect(secondCalls[0]?.eventId).not.toBe(firstCalls[0]?.eventId);
    } finally {
      await receiver.close();
    }
  });

  it('delivers after a restart what was still pending when the app closed', async () => {
    const receiver = await startReceiver();
    receiver.state.failing = true;
    // The first app is the test app itself; the second starts on its database once it is closed.
    const first = await startTestApp(database, { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, { webhooks: { baseBackoffMs: 100, pollIntervalMs: 50 } });
    let second: BuiltApp | null = null;
    try {
      const bot = await first.app
        .inject({
          method: 'POST',
          url: '/api/v2/bots',
          headers: { authorization: `Bearer ${first.adminToken}` },
          payload: { displayName: 'Bot', webhookUrl: receiver.url },
        })
        .then((response) => response.json<{ userId: string; clientSecret: string }>());
      const userId = first.uniqueId('user');
      const headers = { authorization: `Bearer ${first.adminToken}` };
      expect((await first.app.inject({ method: 'PUT', url: '/api/v2/users', headers, payload: { userId } })).statusCode).toBe(200);
      const token = (await first.app.inject({ method: 'POST', url: `/api/v2/users/${userId}/tokens`, headers, payload: {} })).json<{ accessToken: string }>()
        .accessToken;
      const channelId = first.uniqueId('restart');
      expect(
        (await first.app.inject({ method: 'POST', url: '/api/v2/channel', headers, payload: { channelId, type: 'standard', userIds: [bot.userId, userId] } }))
          .statusCode,
      ).toBe(200);

      const messageId = await sendAsUser(first, token, channelId, 'before the restart');
      await receiver.waitFor((calls) => calls.length >= 1);
      await first.app.close();
      const failedCalls = receiver.received.length;
      expect(receiver.received.every((call) => call.status === 500)).toBe(true);

      // Anything that succeeds from now on was sent by the second app: the first is closed.
      receiver.state.failing = false;
      second = await buildApp(first.config, {
        storage: openStorage({ databaseUrl: first.config.databaseUrl, dataDir: first.config.dataDir, poolSize: 5 }),
        webhooks: { baseBackoffMs: 100, pollIntervalMs: 50 },
      });
      await second.app.ready();
      await receiver.waitFor((calls) => calls.some((call) => call.status === 200));

      const delivered = receiver.received.filter((call) => call.status === 200);
      expect(delivered).toHaveLength(1);
      expect(receiver.received.length).toBeGreaterThan(failedCalls);
      expect(delivered[0]?.eventId).toBe(receiver.received[0]?.eventId);
      expect(delivered[0]?.signature).toBe(sign(delivered[0]?.body ?? '', bot.clientSecret));
      expect((JSON.parse(delivered[0]?.body ?? '{}') as WebhookBody).data.messageId).toBe(messageId);
    } finally {
      await second?.app.close();
      await first.close();
      await receiver.close();
    }
  });
});
