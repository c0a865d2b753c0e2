import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST';

interface QueueFlag {
  userId: string;
  displayName: string;
  reason: string | null;
  createdAt: string;
}

describe.each(testDatabases)('reasons on client flags, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function member(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} person` });
    const minted = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 36_000 });
    const token = (minted.json() as { accessToken: string }).accessToken;
    const as = (method: Method, url: string, payload?: Record<string, unknown> | string, contentType?: string): Promise<LightMyRequestResponse> =>
      t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) },
        ...(payload === undefined ? {} : { payload }),
      });
    return { userId, as };
  }

  async function flaggedMessageSetup() {
    const author = await member('author');
    const flaggers = [await member('ann'), await member('ben'), await member('cid'), await member('dee')];
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [author.userId, ...flaggers.map((one) => one.userId)] });
    const sent = await author.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'you are all wrong' } });
    expect(sent.statusCode, sent.body).toBe(200);
    const messageId = (sent.json() as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId as string;
    return { author, flaggers, messageId };
  }

  /** The flags the moderation queue shows for one message or user. */
  async function queueFlags(kind: 'messages' | 'users', id: string): Promise<QueueFlag[]> {
    const response = await admin.call('GET', `/api/v2/moderation/${kind}?limit=100`);
    expect(response.statusCode, response.body).toBe(200);
    const items = (response.json() as { items: Array<{ message?: { messageId: string }; user?: { userId: string }; flags: QueueFlag[] }> }).items;
    const item = items.find((one) => (one.message?.messageId ?? one.user?.userId) === id);
    return item?.flags ?? [];
  }

  const reasonsOf = (flags: QueueFlag[]) => Object.fromEntries(flags.map((flag) => [flag.userId, flag.reason]));

  it('keeps the reason of a message flag sent as JSON or as a form, trimmed, and none when the body is absent or empty', async () => {
    const { flaggers, messageId } = await flaggedMessageSetup();
    const [ann, ben, cid, dee] = flaggers as [(typeof flaggers)[0], (typeof flaggers)[0], (typeof flaggers)[0], (typeof flaggers)[0]];
    const url = `/client/v1/messages/${messageId}/flag`;

    const json = await ann.as('POST', url, { reason: '  Insults another member \n' });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json()).toEqual({ status: 'success', flagged: true, flagCount: 1 });
    const form = await ben.as('POST', url, 'reason=Spam+link', 'application/x-www-form-urlencoded');
    expect(form.statusCode, form.body).toBe(200);
    expect((await cid.as('POST', url)).json()).toEqual({ status: 'success', flagged: true, flagCount: 3 });
    expect((await dee.as('POST', url, {})).json()).toEqual({ status: 'success', flagged: true, flagCount: 4 });

    expect(reasonsOf(await queueFlags('messages', messageId))).toEqual({
      [ann.userId]: 'Insults another member',
      [ben.userId]: 'Spam link',
      [cid.userId]: null,
      [dee.userId]: null,
    });
    // A second flag changes nothing, its reason included.
    expect((await ann.as('POST', url, { reason: 'Changed my mind' })).json()).toEqual({ status: 'success', flagged: false, flagCount: 4 });
    expect(reasonsOf(await queueFlags('messages', messageId))[ann.userId]).toBe('Insults another member');
  });

  it('refuses a message flag reason that is blank, too long or not text, in the envelope, and flags nothing', async () => {
    const { flaggers, messageId } = await flaggedMessageSetup();
    const ann = flaggers[0] as (typeof flaggers)[0];
    const url = `/client/v1/messages/${messageId}/flag`;
    for (const reason of ['   ', '', 'x'.repeat(501)]) {
      const refused = await ann.as('POST', url, { reason });
      expect(refused.statusCode, reason).toBe(422);
      expect(refused.json()).toMatchObject({ status: 'error', code: 500000 });
      expect(JSON.stringify(refused.json().data.fields)).toContain('reason');
    }
    const notText = await ann.as('POST', url, { reason: 42 });
    expect(notText.statusCode).toBe(422);
    expect(notText.json()).toMatchObject({ status: 'error', code: 500000 });
    expect(await queueFlags('messages', messageId)).toEqual([]);
    // 500 characters is the most a reason holds.
    expect((await ann.as('POST', url, { reason: 'y'.repeat(500) })).statusCode).toBe(200);
    expect(reasonsOf(await queueFlags('messages', messageId))[ann.userId]).toBe('y'.repeat(500));
  });

  it('keeps the reason of a user flag, refuses a blank one, and flags without one as before', async () => {
    const target = await member('target');
    const ann = await member('ann');
    const ben = await member('ben');
    const url = `/client/v1/users/${target.userId}/flag`;
    const blank = await ann.as('POST', url, { reason: ' \t ' });
    expect(blank.statusCode).toBe(422);
    expect(blank.json()).toMatchObject({ status: 'error', code: 500000, data: { fields: [{ field: 'body.reason' }] } });

    expect((await ann.as('POST', url, { reason: ' Impersonates the support team ' })).json()).toEqual({ status: 'success', flagged: true });
    expect((await ben.as('POST', url)).json()).toEqual({ status: 'success', flagged: true });
    expect((await ann.as('POST', url, { reason: 'again' })).json()).toEqual({ status: 'success', flagged: false });
    expect(reasonsOf(await queueFlags('users', target.userId))).toEqual({ [ann.userId]: 'Impersonates the support team', [ben.userId]: null });
    // Flagging oneself and an unknown user answer as they did.
    expect((await ann.as('POST', `/client/v1/users/${ann.userId}/flag`, { reason: 'me' })).statusCode).toBe(400);
    expect((await ann.as('POST', `/client/v1/users/${t.uniqueId('nobody')}/flag`, { reason: 'who' })).statusCode).toBe(404);
  });
});
