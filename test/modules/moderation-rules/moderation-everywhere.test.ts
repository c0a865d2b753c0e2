import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One blacklisted word and one link no whitelist rule allows; every text users see must be held to them. */
const WORD = 'zorblaxian';
const LINK = 'https://evil.example.net/landing';

const BLACKLISTED = { status: 'error', code: 400308, message: 'Text contains a blacklisted word.' };
const NOT_WHITELISTED = { status: 'error', code: 400309, message: 'Text contains a link that is not whitelisted.' };

describe.each(testDatabases)('moderation rules on every text users see, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let ann: Awaited<ReturnType<typeof userWithToken>>;
  let channelId: string;

  async function userWithToken(prefix: string, roles: string[] = []) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { roles });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const headers = { authorization: `Bearer ${token}` };
    const as = (method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const upload = async (url: string, fields: Array<[string, string]>, fileName = 'a.jpg') => {
      const body = multipartBody(fields, [{ name: 'file', fileName, contentType: 'image/jpeg', data: await makeJpeg(20, 20) }]);
      return t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': body.contentType }, payload: body.payload });
    };
    return { userId, as, upload };
  }

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [WORD] })).statusCode).toBe(200);
    expect((await admin.call('POST', '/api/v2/whitelist/records', { regexs: ['example.com'] })).statusCode).toBe(200);
    const editor = t.uniqueId('editor');
    expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [editor], permissions: ['EDIT_CHANNEL'] })).statusCode).toBe(200);
    ann = await userWithToken('ann', [editor]);
    channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [ann.userId], displayName: 'Room' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function storedMessages(): Promise<number> {
    const row = await t.storage.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Refused as a blocked message text is (same status, code and message), naming the field, never repeating the word. */
  function expectBlocked(response: LightMyRequestResponse, expected: typeof BLACKLISTED | typeof NOT_WHITELISTED, field: string): void {
    expect(response.statusCode, response.body).toBe(403);
    expect(response.json()).toMatchObject({ ...expected, data: { fields: [{ field }] } });
    expect(response.body).not.toContain(WORD);
  }

  const send = (payload: Record<string, unknown>) => ann.as('POST', `/client/v1/channels/${channelId}/messages`, payload);

  it('answers a blocked message text as before (the reference for the cases below)', async () => {
    expectBlocked(await send({ type: 'text', data: { text: `a ${WORD} text` } }), BLACKLISTED, 'body.data.text');
    expect(await storedMessages()).toBe(0);
  });

  it.each([
    ['a tag', { type: 'text', data: { text: 'hello' }, tags: ['fine', `${WORD}-tag`] }, BLACKLISTED, 'body.tags[1]'],
    ['a link in a tag', { type: 'text', data: { text: 'hello' }, tags: [LINK] }, NOT_WHITELISTED, 'body.tags[0]'],
    ['the topic', { type: 'text', data: { text: 'hello' }, topicId: `${WORD}-talk` }, BLACKLISTED, 'body.topicId'],
    ['a custom data key', { type: 'custom', data: { [`${WORD}`]: 'fine' } }, BLACKLISTED, 'body.data'],
    ['a nested custom data key', { type: 'custom', data: { poll: { options: [{ [`the ${WORD}`]: 1 }] } } }, BLACKLISTED, 'body.data.poll.options[0]'],
    ['a link as a custom data key', { type: 'custom', data: { [LINK]: true } }, NOT_WHITELISTED, 'body.data'],
    ['a nested custom data value', { type: 'custom', data: { poll: { options: ['yes', `${WORD}!`] } } }, BLACKLISTED, 'body.data.poll.options[1]'],
  ])('refuses a message whose %s breaks a rule, storing nothing', async (_what, payload, expected, field) => {
    const before = await storedMessages();
    expectBlocked(await send(payload), expected, field);
    expect(await storedMessages()).toBe(before);
  });

  it('refuses image and file messages whose tags or topic break a rule', async () => {
    const before = await storedMessages();
    expectBlocked(await ann.upload(`/client/v1/channels/${channelId}/images`, [['tags', `${WORD}`]]), BLACKLISTED, 'body.tags[0]');
    expectBlocked(await ann.upload(`/client/v1/channels/${channelId}/images`, [['topicId', `${WORD}`]]), BLACKLISTED, 'body.topicId');
    expectBlocked(await ann.upload(`/client/v1/channels/${channelId}/files`, [['tags', LINK]], 'notes.txt'), NOT_WHITELISTED, 'body.tags[0]');
    expect(await storedMessages()).toBe(before);
  });

  it('refuses the same through the admin API, whose messages pass the same rules', async () => {
    const before = await storedMessages();
    expectBlocked(await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'hi' }, tags: [WORD] }), BLACKLISTED, 'body.tags[0]');
    expectBlocked(await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { [WORD]: 1 } }), BLACKLISTED, 'body.data');
    expect(await storedMessages()).toBe(before);
  });

  it('keeps accepting clean tags, topics and custom data', async () => {
    const before = await storedMessages();
    const clean = await send({ type: 'custom', data: { poll: { 'lunch at noon?': ['yes', 'no'] }, see: 'https://docs.example.com/x' }, tags: ['lunch'] });
    expect(clean.statusCode, clean.body).toBe(200);
    const topical = await send({ type: 'text', data: { text: 'hello' }, topicId: 'release', tags: ['https://example.com/a'] });
    expect(topical.statusCode, topical.body).toBe(200);
    expect(await storedMessages()).toBe(before + 2);
  });

  it('refuses community names and ids that break a rule, creating nothing', async () => {
    const cases: Array<[Record<string, unknown>, typeof BLACKLISTED | typeof NOT_WHITELISTED, string]> = [
      [{ displayName: `The ${WORD} club` }, BLACKLISTED, 'body.displayName'],
      [{ displayName: `Join us at ${LINK}` }, NOT_WHITELISTED, 'body.displayName'],
      [{ communityId: `${WORD}-club`, displayName: 'Hiking' }, BLACKLISTED, 'body.communityId'],
    ];
    for (const [body, expected, field] of cases) expectBlocked(await ann.as('POST', '/client/v1/communities', body), expected, field);
    expect(await t.storage.db.selectFrom('communities').select('id').execute()).toEqual([]);
    const fine = await ann.as('POST', '/client/v1/communities', { communityId: t.uniqueId('hiking'), displayName: 'Hiking' });
    expect(fine.statusCode, fine.body).toBe(200);
  });

  it('refuses a channel name set through the client API that breaks a rule, keeping the old name', async () => {
    expectBlocked(await ann.as('PUT', `/client/v1/channels/${channelId}`, { displayName: `${WORD} room` }), BLACKLISTED, 'body.displayName');
    expectBlocked(await ann.as('PUT', `/client/v1/channels/${channelId}`, { displayName: LINK }), NOT_WHITELISTED, 'body.displayName');
    const stored = await t.storage.db.selectFrom('channels').select('display_name').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(stored.display_name).toBe('Room');
    const renamed = await ann.as('PUT', `/client/v1/channels/${channelId}`, { displayName: 'Lounge' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().channel.displayName).toBe('Lounge');
  });
});
