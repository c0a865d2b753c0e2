import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/** Hostile inputs get a 4xx: none answers 500 or reaches a service unvalidated. */
describe.each(testDatabases)('hostile input on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** `{"nest": [[[...]]]}` as JSON text: too deep for JSON.stringify, so not built as an object here either. */
  const deep = (levels: number) => `{"nest":${'['.repeat(levels)}"bottom"${']'.repeat(levels)}}`;
  const post = (url: string, json: string) =>
    t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' }, payload: json });

  it('answers JSON nested too deeply to serialize with 422 naming the field, storing nothing', async () => {
    const channelId = t.uniqueId('deep');
    const channel = await post('/api/v2/channel', `{"channelId":"${channelId}","type":"standard","metadata":${deep(20_000)}}`);
    expect({ status: channel.statusCode, code: channel.json().code }).toEqual({ status: 422, code: 500000 });
    expect(channel.json().data.fields[0].field).toMatch(/metadata$/);
    expect((await t.storage.db.selectFrom('channels').select('id').where('id', '=', channelId).execute()).length).toBe(0);

    await admin.createChannel(channelId);
    const message = await post('/api/v2/message', `{"channelId":"${channelId}","type":"custom","data":${deep(20_000)}}`);
    expect(message.statusCode).toBeGreaterThanOrEqual(400);
    expect(message.statusCode).toBeLessThan(500);
    expect(message.json().status).toBe('error');
    expect((await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute()).length).toBe(0);
  });

  it('refuses a control character in an id with 422, whatever the database', async () => {
    const channelId = t.uniqueId('nul');
    await admin.createChannel(channelId);
    const message = (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'hi' } })).json().data.messages[0];
    for (const reactionName of ['a\u0000', 'b\u0007', 'c\u007f']) {
      const added = await admin.call('POST', '/api/v2/reactions', { referenceId: message.messageId, referenceType: 'message', reactionName });
      expect({ status: added.statusCode, code: added.json().code }).toEqual({ status: 422, code: 500000 });
    }
    const nulChannel = await admin.call('POST', '/api/v2/channel', { channelId: 'x\u0000y', type: 'standard' });
    expect(nulChannel.statusCode).toBe(422);
  });

  it('uses only the declared fields of an admin upload: a topicId part is not taken unvalidated', async () => {
    const channelId = t.uniqueId('upload');
    await admin.createChannel(channelId);
    for (const topicFields of [
      [['topicId', 'has space']],
      [
        ['topicId', 'a'],
        ['topicId', 'b'],
      ],
    ] as Array<Array<[string, string]>>) {
      const { payload, contentType } = multipartBody(
        [['channelId', channelId], ...topicFields],
        [{ name: 'file', fileName: 'notes.txt', contentType: 'text/plain', data: Buffer.from('notes') }],
      );
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v2/messages/files',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
        payload,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().data.messages[0].topicId).toBeNull();
    }
  });

  it('refuses a NUL character in any text with 422 naming the field, on every database', async () => {
    const userId = t.uniqueId('nul-user');
    await admin.createUser(userId, { displayName: 'Nul' });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const asUser = (method: 'POST' | 'GET', url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    const cases: Array<[string, Promise<{ statusCode: number; json: () => { code?: number; data?: { fields?: Array<{ field: string }> } } }>, string]> = [
      ['post text', asUser('POST', '/client/v1/posts', { text: 'a\u0000b' }), 'body.text'],
      ['community name', asUser('POST', '/client/v1/communities', { displayName: 'a\u0000b' }), 'body.displayName'],
      ['user display name', admin.call('PUT', '/api/v2/users', { userId, displayName: 'x\u0000y' }), 'body.displayName'],
      [
        'channel display name',
        admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('nul-ch'), type: 'standard', displayName: 'x\u0000' }),
        'body.displayName',
      ],
      [
        'nested custom data',
        admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('nul-meta'), type: 'standard', metadata: { deep: ['ok', 'n\u0000'] } }),
        'body.metadata.deep[1]',
      ],
      ['user search', admin.call('GET', '/api/v2/users?search=a%00b'), 'querystring.search'],
      ['blacklist word', admin.call('POST', '/api/v2/blacklist/records', { regexs: ['b\u0000d'] }), 'body.regexs[0]'],
    ];
    for (const [label, pending, field] of cases) {
      const response = await pending;
      expect({ label, status: response.statusCode, code: response.json().code, field: response.json().data?.fields?.[0]?.field }).toEqual({
        label,
        status: 422,
        code: 500000,
        field,
      });
    }
    const form = await t.app.inject({
      method: 'PUT',
      url: '/api/v2/users',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `userId=${userId}&displayName=a%00b`,
    });
    expect({ status: form.statusCode, field: form.json().data.fields[0].field }).toEqual({ status: 422, field: 'body.displayName' });
    // A key, and JSON held in a form field, are read too: neither may reach PostgreSQL.
    const key = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('nul-key'), type: 'standard', metadata: { 'k\u0000': 1 } });
    expect({ status: key.statusCode, field: key.json().data?.fields?.[0]?.field }).toEqual({ status: 422, field: 'body.metadata.k\\u0000' });
    const formChannel = t.uniqueId('nul-form');
    await admin.createChannel(formChannel);
    const formJson = await t.app.inject({
      method: 'POST',
      url: '/api/v2/message',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `channelId=${formChannel}&type=text&data[text]=hi&tags=${encodeURIComponent('["a\\u0000"]')}`,
    });
    expect({ status: formJson.statusCode, field: formJson.json().data?.fields?.[0]?.field }).toEqual({ status: 422, field: 'body.tags[0]' });
    // Escaped text that merely reads \u0000 is no NUL.
    expect((await admin.call('PUT', '/api/v2/users', { userId, displayName: 'literally \\u0000' })).statusCode).toBe(200);
  });

  it('refuses multipart fields named like object properties with 400, storing nothing', async () => {
    const channelId = t.uniqueId('proto');
    await admin.createChannel(channelId);
    const file = [{ name: 'file', fileName: 'notes.txt', contentType: 'text/plain', data: Buffer.from('notes') }];
    for (const extra of [
      [
        ['__proto__', 'a'],
        ['__proto__', 'b'],
      ],
      [['constructor', 'x']],
      [['toString', 'y']],
    ] as Array<Array<[string, string]>>) {
      const { payload, contentType } = multipartBody([['channelId', channelId], ['caption', 'hi'], ...extra], file);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v2/messages/files',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
        payload,
      });
      expect({ extra, status: response.statusCode, code: response.json().code }).toEqual({ extra, status: 400, code: 400000 });
    }
    expect((await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute()).length).toBe(0);
  });

  it('lists the reactors of the referenced message only, whatever else the options carry', async () => {
    const channelId = t.uniqueId('reactors');
    await admin.createChannel(channelId);
    const post = async (text: string) =>
      (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } })).json().data.messages[0].messageId as string;
    const first = await post('first');
    const second = await post('second');
    await admin.call('POST', '/api/v2/reactions', { referenceId: second, referenceType: 'message', reactionName: 'like' });
    for (const extra of [`options[messageId]=${second}`, `options[messageId][]=${first}&options[messageId][]=${second}`]) {
      const listed = await admin.call('GET', `/api/v2/reactions?referenceId=${first}&referenceType=message&${extra}`);
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json().data.reactions).toEqual([{ referenceId: first, referenceType: 'message', reactors: [] }]);
    }
  });
});
