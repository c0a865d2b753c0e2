import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Who a user's message is delivered to by webhook: bot members with a webhook, not globally banned,
 * whose membership began by the time of the message.
 */
describe.each(testDatabases)('bot webhook audience on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    // Nothing listens on port 9: deliveries fail, but what matters here is what gets scheduled.
    t = await startTestApp(
      database,
      { PARLEY_BOT_RATE_LIMIT: '1000000', PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
      { webhooks: { pollIntervalMs: 3_600_000 } },
    );
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function user(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const say = (channelId: string, words: string) =>
      t.app.inject({
        method: 'POST',
        url: `/client/v1/channels/${channelId}/messages`,
        headers: { authorization: `Bearer ${token}` },
        payload: { type: 'text', data: { text: words } },
      });
    return { userId, token, say };
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

  it('a globally banned bot no longer receives what users say in its channels', async () => {
    const botId = await hookedBot('Banned hook bot');
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId, botId] });
    expect((await ann.say(gid, 'before the ban')).statusCode).toBe(200);
    expect(await deliveriesFor(botId)).toEqual(['before the ban']);
    const banned = await admin.call('POST', '/api/v2/users/ban', { userId: botId });
    expect(banned.statusCode, banned.body).toBe(200);
    expect((await ann.say(gid, 'after the ban: secret plans')).statusCode).toBe(200);
    expect(await deliveriesFor(botId)).toEqual(['before the ban']);
  });

  it('gives up a delivery scheduled before the bot was banned, without sending it', async () => {
    const botId = await hookedBot('Pending hook bot');
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId, botId] });
    expect((await ann.say(gid, 'scheduled, then the ban')).statusCode).toBe(200);
    expect(await deliveriesFor(botId)).toEqual(['scheduled, then the ban']);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: botId })).statusCode).toBe(200);
    // Due now, whether or not a first attempt (nothing listens on port 9) already pushed it back.
    await t.storage.db.updateTable('webhook_deliveries').set({ next_attempt_at: 0 }).where('bot_user_id', '=', botId).execute();
    await t.webhooks.sendDue();
    const [row] = await t.webhooks.deliveriesFor(botId);
    expect(row).toMatchObject({ delivered_at: null, last_error: 'the bot has no webhook, or is banned' });
    expect(row?.gave_up_at).not.toBeNull();
  });

  it('a bot added to a channel does not receive a message said before it joined', async () => {
    const botId = await hookedBot('Late bot');
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId] });
    const speakThenAdd = async () => {
      expect((await ann.say(gid, 'said before the bot joined')).statusCode).toBe(200);
      const added = await admin.call('POST', `/api/v2/channel/${gid}/users`, { userIds: [botId] });
      expect(added.statusCode, added.body).toBe(200);
    };
    if (database === 'postgres') {
      // Hold the webhooks consumer's cursor (as a busy peer instance would) while the two happen.
      await t.storage.db.transaction().execute(async (trx) => {
        await sql`select last_id from outbox_consumers where name = 'webhooks' for update`.execute(trx);
        await speakThenAdd();
        await t.events.relay.flush();
      });
    } else {
      await speakThenAdd();
    }
    expect((await ann.say(gid, 'said after the bot joined')).statusCode).toBe(200);
    expect(await deliveriesFor(botId)).toEqual(['said after the bot joined']);
  });
});
