import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

interface OpenPage {
  items: Array<{ message: { messageId: string }; flagCount: number }>;
  paging: { next: string | null; prev: string | null };
}

describe.each(testDatabases)('the open queue filtered by channel, reporter and reason on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  const ids: Record<string, string> = {};
  const tokens: Record<string, string> = {};

  const asUser = (who: string, method: 'POST' | 'GET', url: string, payload?: Record<string, unknown>) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${tokens[who]}` }, ...(payload ? { payload } : {}) });

  async function send(who: string, channelId: string, text: string): Promise<string> {
    const response = await asUser(who, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId as string;
  }

  async function flag(who: string, messageId: string, reason: string): Promise<void> {
    const response = await asUser(who, 'POST', `/client/v1/messages/${messageId}/flag`, { reason });
    expect(response.statusCode, response.body).toBe(200);
    await admin.call('PUT', '/api/v2/test-clock', { offsetMs: (Object.keys(ids).length + 1) * 1000 });
    ids[`flag-${Object.keys(ids).length}`] = messageId;
  }

  async function open(query: string): Promise<OpenPage> {
    const response = await admin.call('GET', `/api/v2/moderation/messages?status=open&${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as OpenPage;
  }
  const messagesOf = (page: OpenPage) => page.items.map((item) => item.message.messageId);

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
    for (const who of ['author', 'rita', 'ravi']) {
      const userId = t.uniqueId(who);
      ids[who] = userId;
      await admin.createUser(userId, { displayName: who });
      tokens[who] = (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 })).json().accessToken;
    }
    for (const room of ['alpha', 'beta']) {
      ids[room] = t.uniqueId(room);
      await admin.createChannel(ids[room] as string, { userIds: [ids.author, ids.rita, ids.ravi] });
    }
    ids.m1 = await send('author', ids.alpha as string, 'buy watches');
    ids.m2 = await send('author', ids.beta as string, 'you are awful');
    ids.m3 = await send('author', ids.alpha as string, 'more watches');
    await flag('rita', ids.m1, 'Spam link');
    await flag('ravi', ids.m2, 'Harassment');
    await flag('rita', ids.m3, 'off topic');
    await flag('ravi', ids.m3, 'SPAM again');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('narrows by channel, by reporter, by reason (any case), and by a reporter and reason of the same flag; counts stay whole', async () => {
    expect(messagesOf(await open(''))).toEqual([ids.m3, ids.m2, ids.m1]);
    expect(messagesOf(await open(`channelId=${ids.alpha}`))).toEqual([ids.m3, ids.m1]);
    const byRavi = await open(`reporter=${ids.ravi}`);
    expect(messagesOf(byRavi)).toEqual([ids.m3, ids.m2]);
    expect(byRavi.items[0]?.flagCount).toBe(2);
    expect(messagesOf(await open('reason=spam'))).toEqual([ids.m3, ids.m1]);
    expect(messagesOf(await open(`reporter=${ids.rita}&reason=spam`))).toEqual([ids.m1]);
    expect(messagesOf(await open(`channelId=${ids.beta}&reason=spam`))).toEqual([]);
    // LIKE wildcards are taken literally.
    expect(messagesOf(await open('reason=%25'))).toEqual([]);
  });

  it('pages with the filters: a token continues its own filtered list, alone or with the same filters, and refuses others', async () => {
    const first = await open(`channelId=${ids.alpha}&limit=1`);
    expect(messagesOf(first)).toEqual([ids.m3]);
    const token = encodeURIComponent(first.paging.next as string);
    const alone = await open(`pageToken=${token}`);
    expect(messagesOf(alone)).toEqual([ids.m1]);
    expect(alone.paging.next).toBeNull();
    expect(messagesOf(await open(`channelId=${ids.alpha}&pageToken=${token}`))).toEqual([ids.m1]);
    const other = await admin.call('GET', `/api/v2/moderation/messages?status=open&channelId=${ids.beta}&pageToken=${token}`);
    expect(other.statusCode).toBe(400);
    const back = await open(`pageToken=${encodeURIComponent(alone.paging.prev as string)}`);
    expect(messagesOf(back)).toEqual([ids.m3]);

    const byReason = await open('reason=spam&limit=1');
    expect(messagesOf(await open(`pageToken=${encodeURIComponent(byReason.paging.next as string)}`))).toEqual([ids.m1]);
  });

  it('refuses the filters on the reviews and a blank or long reason', async () => {
    expect((await admin.call('GET', `/api/v2/moderation/messages?status=reviewed&channelId=${ids.alpha}`)).statusCode).toBe(400);
    expect((await admin.call('GET', '/api/v2/moderation/messages?reason=')).statusCode).toBe(422);
    expect((await admin.call('GET', `/api/v2/moderation/messages?reason=${'x'.repeat(101)}`)).statusCode).toBe(422);
  });
});
