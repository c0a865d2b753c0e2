import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../../../src/events/outbox.js';
import { signWebhookBody } from '../../../src/modules/webhooks/webhooks.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { looseOutboxEvent, uncatalogued } from '../../events/uncatalogued.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A bot's endpoint that fails the first `failures` calls with 500, then answers 200. */
async function startReceiver(failures: number) {
  const received: Received[] = [];
  let calls = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      calls += 1;
      response.writeHead(calls <= failures ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/hook`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A user's message in a new channel of that user and the bot, scheduled for the bot's webhook. */
async function scheduleUserMessage(app: TestApp, bot: string, messageId: string): Promise<void> {
  const admin = adminClient(app);
  const user = app.uniqueId('user');
  await admin.createUser(user);
  const channelId = app.uniqueId('hooked');
  await admin.createChannel(channelId, { userIds: [bot, user] });
  await app.storage.db
    .transaction()
    .execute((trx) => appendEvents(trx, uncatalogued([{ type: 'message.created', channelId, userId: user, data: { messageId } }]), app.clock.now()));
  await app.events.relay.flush();
  await app.events.consumers.drain();
}

describe.each(testDatabases)('bot webhooks on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    // The app's own webhook sender, with a short backoff and poll so retries come within the test.
    // The receivers listen on the loopback interface, which webhooks reach only when allowed.
    t = await startTestApp(database, { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, { webhooks: { baseBackoffMs: 1, maxBackoffMs: 20, pollIntervalMs: 20 } });
    admin = adminClient(t);
  });

  async function createBot(displayName: string, webhookUrl?: string): Promise<{ userId: string; clientSecret: string }> {
    const response = await admin.call('POST', '/api/v2/bots', { displayName, ...(webhookUrl ? { webhookUrl } : {}) });
    expect(response.statusCode).toBe(200);
    return response.json();
  }
  afterAll(async () => {
    await t.close();
  });

  it('posts each user message to member bots, signed, retried with the same event id until it succeeds', async () => {
    const receiver = await startReceiver(2);
    const hooked = await createBot('Bot', receiver.url);
    const secret = hooked.clientSecret;
    const bot = hooked.userId;
    const quietBot = (await createBot('No hook')).userId;
    const user = t.uniqueId('user');
    await admin.createUser(user);
    const channelId = t.uniqueId('hooked');
    await admin.createChannel(channelId, { userIds: [bot, quietBot, user] });
    const webhooks = t.webhooks;

    // A user's message and a bot's own message, as the messages module writes them.
    await t.storage.db.transaction().execute((trx) =>
      appendEvents(
        trx,
        uncatalogued([
          { type: 'message.created', channelId, userId: user, data: { messageId: 'm1', data: { text: 'hello bot' } } },
          { type: 'message.created', channelId, userId: bot, data: { messageId: 'm2', data: { text: 'my own words' } } },
        ]),
        Date.now(),
      ),
    );
    await t.events.relay.flush();
    await t.events.consumers.drain();
    // Scheduling twice (a consumer replay) must not double the delivery.
    const events = await t.storage.db.selectFrom('outbox').selectAll().where('channel_id', '=', channelId).where('type', '=', 'message.created').execute();
    await t.storage.db.transaction().execute((trx) =>
      webhooks.schedule(
        trx,
        events.map((row) =>
          looseOutboxEvent({
            id: row.id,
            type: row.type,
            channelId: row.channel_id,
            userId: row.user_id,
            recipientId: null,
            data: JSON.parse(row.payload),
            createdAt: row.created_at,
          }),
        ),
      ),
    );

    for (let round = 0; round < 50 && receiver.received.length < 3; round++) {
      await webhooks.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // The receiver counts a call before its answer reaches the sender, so the third attempt's
    // outcome may still be on its way to the database: wait for it, bounded.
    for (let round = 0; round < 200 && (await webhooks.deliveriesFor(bot))[0]?.delivered_at == null; round++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await receiver.close();

    expect(receiver.received).toHaveLength(3);
    const ids = receiver.received.map((call) => call.headers['x-parley-event-id']);
    expect(new Set(ids).size).toBe(1);
    for (const call of receiver.received) {
      const body = JSON.parse(call.body);
      expect(body).toMatchObject({ id: ids[0], type: 'message.created', data: { messageId: 'm1', data: { text: 'hello bot' } } });
      expect(call.headers['x-parley-signature']).toBe(signWebhookBody(call.body, secret));
      expect(call.headers['x-parley-signature']).not.toBe(signWebhookBody(call.body, 'another secret'));
    }
    expect(receiver.received.map((call) => JSON.parse(call.body).attempt)).toEqual([1, 2, 3]);
    const deliveries = await webhooks.deliveriesFor(bot);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ attempts: 3, last_error: null });
    expect(deliveries[0]?.delivered_at).not.toBeNull();
    expect(await webhooks.deliveriesFor(quietBot)).toEqual([]);
  });

  it('gives up on a delivery once a day has passed since the event', async () => {
    const receiver = await startReceiver(1000);
    const bot = (await createBot('Bot', receiver.url)).userId;
    const webhooks = t.webhooks;
    await scheduleUserMessage(t, bot, 'm3');
    for (let round = 0; round < 200 && receiver.received.length === 0; round++) {
      await webhooks.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(receiver.received.length).toBeGreaterThan(0);
    t.clock.setOffset(25 * 3600_000);
    // The sender's own rounds run too; the one started before the jump may still be in flight.
    for (let round = 0; round < 200 && (await webhooks.deliveriesFor(bot))[0]?.gave_up_at == null; round++) {
      await webhooks.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    t.clock.setOffset(0);
    const [delivery] = await webhooks.deliveriesFor(bot);
    expect(delivery?.gave_up_at).not.toBeNull();
    expect(delivery?.delivered_at).toBeNull();
    const calls = receiver.received.length;
    await webhooks.sendDue();
    expect(receiver.received.length).toBe(calls);
    await receiver.close();
  });

  it("lets the operator move a bot's webhook: pending deliveries go to the new URL; the deliveries are listed", async () => {
    const broken = await startReceiver(1000);
    const fixed = await startReceiver(0);
    const bot = (await createBot('Moving bot', broken.url)).userId;
    await scheduleUserMessage(t, bot, 'm5');
    for (let round = 0; round < 200 && broken.received.length === 0; round++) {
      await t.webhooks.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const failing = (await admin.call('GET', `/api/v2/bots/${bot}/webhooks`)).json<{ deliveries: Array<Record<string, unknown>> }>().deliveries;
    expect(failing).toHaveLength(1);
    expect(failing[0]).toMatchObject({ state: 'pending', lastError: 'HTTP 500', deliveredAt: null, gaveUpAt: null });
    expect(failing[0]?.attempts).toBeGreaterThanOrEqual(1);

    // Refused like at creation, unknown bots are 404, and the move answers the new URL.
    expect((await admin.call('PUT', `/api/v2/bots/${bot}`, { webhookUrl: 'http://169.254.169.254/' })).statusCode).toBe(422);
    expect((await admin.call('PUT', '/api/v2/bots/no-such-bot', { webhookUrl: fixed.url })).json()).toMatchObject({ code: 400400 });
    expect((await admin.call('GET', '/api/v2/bots/no-such-bot/webhooks')).statusCode).toBe(404);
    const moved = await admin.call('PUT', `/api/v2/bots/${bot}`, { webhookUrl: fixed.url });
    expect(moved.json()).toEqual({ userId: bot, clientId: expect.any(String), webhookUrl: fixed.url });

    for (let round = 0; round < 200 && fixed.received.length === 0; round++) {
      await t.webhooks.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let round = 0; round < 200 && (await t.webhooks.deliveriesFor(bot))[0]?.delivered_at == null; round++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(fixed.received).toHaveLength(1);
    const [delivered] = (await admin.call('GET', `/api/v2/bots/${bot}/webhooks?limit=5`)).json<{ deliveries: Array<Record<string, unknown>> }>().deliveries;
    expect(delivered).toMatchObject({ state: 'delivered', lastError: null, nextAttemptAt: null, gaveUpAt: null });
    expect(delivered?.deliveredAt).toEqual(expect.any(Number));
    // No webhook any more: the bot keeps its memberships, nothing is scheduled for it.
    expect((await admin.call('PUT', `/api/v2/bots/${bot}`, { webhookUrl: null })).json()).toMatchObject({ webhookUrl: null });
    await broken.close();
    await fixed.close();
  });

  it('records an endpoint that does not answer in time as a timeout, and tries again', async () => {
    // Accepts the connection and never answers.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const impatient = await startTestApp(
      database,
      { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
      { webhooks: { requestTimeoutMs: 100, baseBackoffMs: 60_000, pollIntervalMs: 60_000 } },
    );
    try {
      const created = await adminClient(impatient).call('POST', '/api/v2/bots', { displayName: 'Slow bot', webhookUrl: `http://127.0.0.1:${port}/hook` });
      const bot = created.json<{ userId: string }>().userId;
      await scheduleUserMessage(impatient, bot, 'm4');
      await impatient.webhooks.sendDue();
      const [delivery] = await impatient.webhooks.deliveriesFor(bot);
      expect(delivery).toMatchObject({ attempts: 1, last_error: 'timeout', delivered_at: null, gave_up_at: null });
      expect(delivery?.next_attempt_at).toBeGreaterThan(impatient.clock.now());
    } finally {
      await impatient.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
