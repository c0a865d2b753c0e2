import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../../src/clock.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * The webhook audience is decided by commit order (outbox ids), not wall clocks: comparing the
 * membership's created_at (the adding instance's clock) with the message's would skip a bot that
 * joined before a message whenever the adding clock was ahead.
 */
describe.each(testDatabases)('webhook audience vs clocks on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(
      database,
      { PARLEY_BOT_RATE_LIMIT: '1000000', PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', PARLEY_TEST_CLOCK: '1' },
      { webhooks: { pollIntervalMs: 3_600_000 } },
    );
    admin = adminClient(t);
  });
  afterAll(async () => {
    t.clock.setOffset(0);
    await t.close();
  });

  async function user(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const say = (app: TestApp['app'], channelId: string, words: string) =>
      app.inject({
        method: 'POST',
        url: `/client/v1/channels/${channelId}/messages`,
        headers: { authorization: `Bearer ${token}` },
        payload: { type: 'text', data: { text: words } },
      });
    return { userId, say };
  }
  async function hookedBot(name: string) {
    const created = await admin.call('POST', '/api/v2/bots', { displayName: name, webhookUrl: 'http://127.0.0.1:9/hook' });
    expect(created.statusCode, created.body).toBe(200);
    return created.json().userId as string;
  }
  async function deliveriesFor(botUserId: string): Promise<string[]> {
    await t.events.relay.flush();
    await t.events.consumers.drain();
    const rows = await t.storage.db.selectFrom('webhook_deliveries').select(['body']).where('bot_user_id', '=', botUserId).execute();
    return rows.map((row) => (JSON.parse(row.body) as { data: { data: { text: string } } }).data.data.text);
  }

  it('test clock moved back (PUT /api/v2/test-clock sets, not adds): a bot added earlier never hears later messages', async () => {
    const botId = await hookedBot('Clock bot');
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId] });
    expect((await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 60_000 })).statusCode).toBe(200);
    const added = await admin.call('POST', `/api/v2/channel/${gid}/users`, { userIds: [botId] });
    expect(added.statusCode, added.body).toBe(200);
    expect((await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 0 })).statusCode).toBe(200);
    expect((await ann.say(t.app, gid, 'said after the bot joined')).statusCode).toBe(200);
    // The bot, a member since before the message, gets it (a comparison of clocks would schedule nothing).
    expect(await deliveriesFor(botId)).toEqual(['said after the bot joined']);
  });

  it.runIf(database === 'postgres')('two instances whose clocks differ by 2 s: a bot added on the faster one misses what is said on the other', async () => {
    const fast = new AdjustableClock();
    fast.setOffset(2_000);
    const peer = await t.startPeer({}, { clock: fast, webhooks: { pollIntervalMs: 3_600_000 } });
    const botId = await hookedBot('Skew bot');
    const ann = await user('bea');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId] });
    const added = await peer.app.inject({
      method: 'POST',
      url: `/api/v2/channel/${gid}/users`,
      headers: { authorization: `Bearer ${t.adminToken}` },
      payload: { userIds: [botId] },
    });
    expect(added.statusCode, added.body).toBe(200);
    expect((await ann.say(t.app, gid, 'said a moment after the bot joined')).statusCode).toBe(200);
    await peer.events.relay.flush();
    await peer.events.consumers.drain();
    expect(await deliveriesFor(botId)).toEqual(['said a moment after the bot joined']);
  });
});
