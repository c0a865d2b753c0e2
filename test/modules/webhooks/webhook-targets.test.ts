import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { appendEvents } from '../../../src/events/outbox.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { uncatalogued } from '../../events/uncatalogued.js';

/**
 * Bot webhooks reach public addresses only, unless PARLEY_WEBHOOK_ALLOWED_HOSTS lists the internal
 * ones (server-side request forgery: a webhook URL must not reach the loopback interface, the LAN or
 * a cloud metadata endpoint). Checked when the bot is registered and again on each connection, on
 * the addresses DNS answered; the DNS answers here are played by a resolver the test hands the app.
 */

const INTERNAL_URLS = [
  'http://127.0.0.1:9/hook',
  'http://2130706433/hook', // 127.0.0.1 written as one number
  'http://0x7f.1/hook', // and in hex
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook', // IPv4-mapped IPv6
  'http://169.254.169.254/latest/meta-data/', // cloud metadata
  'http://[64:ff9b::a9fe:a9fe]/', // the same through NAT64
  'http://10.1.2.3/hook',
  'http://172.16.0.1/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook',
  'http://0.0.0.0/hook',
  'http://[fd00::1]/hook',
  'http://[fe80::1]/hook',
  'http://localhost:8080/hook',
  'http://LOCALHOST./hook',
  'http://bots.localhost/hook',
  'http://168.63.129.16/machine', // Azure's host endpoint
  'http://[2001::1]/hook', // Teredo
  'http://[::7f00:1]/hook', // 127.0.0.1 IPv4-compatible
  'http://[::ffff:0:7f00:1]/hook', // 127.0.0.1 IPv4-translated (SIIT)
];

describe('PARLEY_WEBHOOK_ALLOWED_HOSTS', () => {
  it('takes host names, addresses and CIDR ranges, and refuses anything else at start-up', () => {
    expect(loadConfig({ PARLEY_WEBHOOK_ALLOWED_HOSTS: ' 127.0.0.1, 10.0.0.0/8 ,bots.internal,fd00::/8' }).webhookAllowedHosts).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      'bots.internal',
      'fd00::/8',
    ]);
    expect(loadConfig({}).webhookAllowedHosts).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'http://bots.internal', '10.0.0.0/8/1', 'bots.internal:8080', '::1/200', 'bots/8']) {
      expect(() => loadConfig({ PARLEY_WEBHOOK_ALLOWED_HOSTS: bad }), bad).toThrow(/PARLEY_WEBHOOK_ALLOWED_HOSTS takes host names/);
    }
  });
});

describe('registering a bot webhook', () => {
  let strict: TestApp;
  let allowing: TestApp;

  beforeAll(async () => {
    strict = await startTestApp('sqlite');
    allowing = await startTestApp('sqlite', { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,10.0.0.0/8,localhost' });
  });
  afterAll(async () => {
    await strict.close();
    await allowing.close();
  });

  it('refuses a URL whose host is an internal address or localhost, and creates no bot', async () => {
    const admin = adminClient(strict);
    for (const webhookUrl of INTERNAL_URLS) {
      const response = await admin.call('POST', '/api/v2/bots', { displayName: 'Probe', webhookUrl });
      expect(response.statusCode, webhookUrl).toBe(422);
      const body = response.json<{ code: number; message: string; data: { fields: Array<{ field: string; message: string }> } }>();
      expect(body.code).toBe(500000);
      expect(body.message).toMatch(/internal address/);
      expect(body.data.fields[0]?.field).toBe('body.webhookUrl');
    }
    const bots = await strict.storage.db.selectFrom('bots').select('user_id').execute();
    expect(bots).toEqual([]);
  });

  it('accepts public addresses and names (names are checked when delivering)', async () => {
    const admin = adminClient(strict);
    for (const webhookUrl of ['https://bots.example/hook', 'http://8.8.8.8/hook', 'http://[2606:4700::1111]/hook']) {
      expect((await admin.call('POST', '/api/v2/bots', { displayName: 'Public', webhookUrl })).statusCode, webhookUrl).toBe(200);
    }
  });

  it('accepts what the operator allowed, and only that', async () => {
    const admin = adminClient(allowing);
    for (const webhookUrl of ['http://127.0.0.1:9/hook', 'http://10.200.0.1/hook', 'http://localhost:8080/hook']) {
      expect((await admin.call('POST', '/api/v2/bots', { displayName: 'Allowed', webhookUrl })).statusCode, webhookUrl).toBe(200);
    }
    for (const webhookUrl of ['http://127.0.0.2/hook', 'http://192.168.1.1/hook', 'http://[::1]/hook', 'http://bots.localhost/hook']) {
      expect((await admin.call('POST', '/api/v2/bots', { displayName: 'Not allowed', webhookUrl })).statusCode, webhookUrl).toBe(422);
    }
  });
});

/** An endpoint on the loopback interface that counts what it receives. */
async function startReceiver() {
  const received: Array<{ host: string | undefined }> = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push({ host: request.headers.host });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { port, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.each(testDatabases)('delivering bot webhooks on %s', (database) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** What the played DNS answers for each name; anything else does not resolve. */
  const answers = new Map<string, LookupAddress[]>([
    ['rebound.example', [{ address: '127.0.0.1', family: 4 }]],
    [
      'lan.example',
      [
        { address: '10.9.9.9', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    ],
  ]);
  const lookup = async (host: string): Promise<LookupAddress[]> => {
    const found = answers.get(host);
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** Creates a bot with the URL, a user message in a channel with it, and runs the sender until the delivery settles. */
  async function deliverOne(t: TestApp, host: string) {
    const admin = adminClient(t);
    const created = await admin.call('POST', '/api/v2/bots', { displayName: 'Bot', webhookUrl: `http://${host}:${receiver.port}/hook` });
    expect(created.statusCode).toBe(200);
    const bot = created.json<{ userId: string }>().userId;
    const user = t.uniqueId('user');
    await admin.createUser(user);
    const channelId = t.uniqueId('hooked');
    await admin.createChannel(channelId, { userIds: [bot, user] });
    await t.storage.db
      .transaction()
      .execute((trx) =>
        appendEvents(trx, uncatalogued([{ type: 'message.created', channelId, userId: user, data: { messageId: 'm1', data: { text: 'hi' } } }]), Date.now()),
      );
    await t.events.relay.flush();
    await t.events.consumers.drain();
    for (let round = 0; round < 200; round++) {
      await t.webhooks.sendDue();
      const [delivery] = await t.webhooks.deliveriesFor(bot);
      if (delivery && (delivery.delivered_at !== null || delivery.gave_up_at !== null)) return delivery;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the delivery did not settle');
  }

  it('refuses to connect when the name resolves to internal addresses only, and gives up at once', async () => {
    const logLines: string[] = [];
    const t = await startTestApp(
      database,
      { LOG_LEVEL: 'warn' },
      { webhookLookup: lookup, webhooks: { baseBackoffMs: 1, pollIntervalMs: 20 }, logStream: { write: (line: string) => void logLines.push(line) } },
    );
    try {
      const before = receiver.received.length;
      const delivery = await deliverOne(t, 'rebound.example');
      expect(delivery).toMatchObject({ attempts: 1, delivered_at: null });
      expect(delivery.gave_up_at).not.toBeNull();
      expect(delivery.last_error).toMatch(/^refused: rebound\.example is an internal address \(127\.0\.0\.1\)/);
      expect(receiver.received.length).toBe(before);
      // The operator hears of it: the name passed bot creation, where only literal addresses are checked.
      const warnings = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; botUserId?: string; reason?: string });
      expect(warnings).toContainEqual(
        expect.objectContaining({ level: 40, msg: 'bot webhook refused: internal address', reason: expect.stringContaining('rebound.example') }),
      );
      // And in the bot's delivery list.
      const bot = warnings.find((line) => line.msg === 'bot webhook refused: internal address')?.botUserId as string;
      const listed = await t.app.inject({ method: 'GET', url: `/api/v2/bots/${bot}/webhooks`, headers: { authorization: `Bearer ${t.adminToken}` } });
      expect(listed.json<{ deliveries: unknown[] }>().deliveries).toEqual([
        expect.objectContaining({ state: 'given up', attempts: 1, lastError: expect.stringMatching(/^refused: /) }),
      ]);
    } finally {
      await t.close();
    }
  });

  it('connects to the allowed address among the answers, and to a name the operator listed', async () => {
    const t = await startTestApp(
      database,
      { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.0/8' },
      { webhookLookup: lookup, webhooks: { baseBackoffMs: 1, pollIntervalMs: 20 } },
    );
    const byName = await startTestApp(
      database,
      { PARLEY_WEBHOOK_ALLOWED_HOSTS: 'rebound.example' },
      { webhookLookup: lookup, webhooks: { baseBackoffMs: 1, pollIntervalMs: 20 } },
    );
    try {
      // 10.9.9.9 is internal and not allowed, so the connection goes to 127.0.0.1, which is.
      const delivery = await deliverOne(t, 'lan.example');
      expect(delivery).toMatchObject({ attempts: 1, last_error: null, gave_up_at: null });
      expect(receiver.received.at(-1)?.host).toBe(`lan.example:${receiver.port}`);
      expect(await deliverOne(byName, 'rebound.example')).toMatchObject({ attempts: 1, last_error: null, gave_up_at: null });
      expect(receiver.received.at(-1)?.host).toBe(`rebound.example:${receiver.port}`);
    } finally {
      await t.close();
      await byName.close();
    }
  });
});
