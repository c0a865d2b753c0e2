import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Bot API and message paths at their edges: JSON types, lone surrogates, closed or left
 * conversations, a refused first picture, file names and moderation, lastActivity on PostgreSQL.
 */

const summary = (r: LightMyRequestResponse) => ({
  status: r.statusCode,
  code: (r.json() as { code?: number }).code,
  message: (r.json() as { message?: string }).message,
});
const text = (data: string) => ({ type: 'text', data });

describe.each(testDatabases)('bot API edge cases on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let bot: Awaited<ReturnType<typeof createBot>>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_BOT_RATE_LIMIT: '1000000', PARLEY_TEST_CLOCK: '1' });
    admin = adminClient(t);
    bot = await createBot(t, 'Hardening bot');
  });
  afterAll(async () => {
    await t.close();
  });

  async function user(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    return { userId, token };
  }

  async function channelCount(): Promise<number> {
    const row = await t.storage.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('answers a JSON field of the wrong type with 422 naming it, where a form still reads text as the type', async () => {
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId, bot.userId] });
    const before = await channelCount();
    for (const [path, payload, field] of [
      ['/direct/message', { uid: ann.userId, message: { type: 'text', data: 12345 } }, 'body.message.data'],
      ['/direct/message', { uid: ann.userId, message: { type: 'text', data: true } }, 'body.message.data'],
      ['/direct/message', { uid: ann.userId, message: { type: 'text', data: ['hello'] } }, 'body.message.data'],
      ['/direct/message', { uid: [ann.userId], message: { type: 'text', data: 'x' } }, 'body.uid'],
      ['/group/message', { gid: [gid], message: { type: 'text', data: 'x' } }, 'body.gid'],
      ['/group/message', { gid, tid: 7, message: { type: 'text', data: 'x' } }, 'body.tid'],
    ] as const) {
      const response = await bot.json(t.app, path, payload);
      expect([field, response.statusCode]).toEqual([field, 422]);
      expect(response.json().data.fields.map((problem: { field: string }) => problem.field)).toContain(field);
    }
    const adminCreate = await admin.call('POST', '/api/v2/message', { channelId: [gid], type: 'text', data: { text: 'x' } });
    expect(adminCreate.statusCode).toBe(422);
    const mute = await admin.call('PUT', `/api/v2/channel/${gid}/mute`, { mutePeriod: '1000' });
    expect(mute.statusCode).toBe(422);
    // Nothing was written: no message, and no conversation was opened.
    expect(await channelCount()).toBe(before);
    // A form carries only text: there "1000" is the number and one value is the list.
    const formMute = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/channel/${gid}/mute`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'mutePeriod=0',
    });
    expect(formMute.statusCode).toBe(200);
    const formRemove = await t.app.inject({
      method: 'DELETE',
      url: `/api/v2/channel/${gid}/users`,
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `userIds=${ann.userId}`,
    });
    expect(formRemove.statusCode).toBe(200);
  });

  it('refuses a lone surrogate in JSON text with 422 naming the field, and keeps a real pair', async () => {
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [bot.userId] });
    const lone = await bot.raw(t.app, '/group/message', `{"gid":"${gid}","tid":"x\\ud800","message":{"type":"text","data":"s"}}`, 'application/json');
    expect(lone.statusCode).toBe(422);
    expect(lone.json().data.fields).toEqual([expect.objectContaining({ field: 'body.tid' })]);
    const inText = await admin.call('POST', '/api/v2/message', `{"channelId":"${gid}","type":"text","data":{"text":"a\\udc00b"}}`, {
      'content-type': 'application/json',
    });
    expect(inText.statusCode).toBe(422);
    expect(inText.json().data.fields).toEqual([expect.objectContaining({ field: 'body.data.text' })]);
    const pair = await bot.raw(t.app, '/group/message', `{"gid":"${gid}","tid":"x\\ud83d\\ude00","message":{"type":"text","data":"s"}}`, 'application/json');
    expect(pair.statusCode).toBe(200);
    expect(pair.json().message.threadId).toBe('x\u{1F600}');
  });

  it('answers a closed conversation 409 / 400900 and a bot removed from its conversation 403 / 400301, as in a group', async () => {
    const ann = await user('ann');
    const first = await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('hello') });
    expect(first.statusCode).toBe(200);
    const conversation = first.json().message.groupId as string;
    expect((await admin.call('POST', `/api/v2/channel/${conversation}/close`)).statusCode).toBe(200);
    expect(summary(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('still there?') }))).toMatchObject({ status: 409, code: 400900 });

    const ola = await user('ola');
    const opened = await bot.json(t.app, '/direct/message', { uid: ola.userId, message: text('hello') });
    const other = opened.json().message.groupId as string;
    expect((await admin.call('DELETE', `/api/v2/channel/${other}/users`, { userIds: [bot.userId] })).statusCode).toBe(200);
    expect(summary(await bot.json(t.app, '/direct/message', { uid: ola.userId, message: text('hello?') }))).toMatchObject({ status: 403, code: 400301 });
    // To anyone else the conversation is still not found.
    const eve = await user('eve');
    const eveReads = await t.app.inject({ method: 'GET', url: `/client/v1/channels/${other}/messages`, headers: { authorization: `Bearer ${eve.token}` } });
    expect(eveReads.statusCode).toBe(404);
  });

  it('opens no conversation for a first picture or file that is refused', async () => {
    const word = `zzname${t.uniqueId('w').replace(/[^a-z0-9]/gi, '')}`;
    expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [word] })).statusCode).toBe(200);
    const ann = await user('ann');
    const before = await channelCount();
    const notImage = await bot.multipart(t.app, '/direct/picture', [['uid', ann.userId]], {
      data: Buffer.from('not a picture at all'),
      fileName: 'x.jpg',
      contentType: 'image/jpeg',
    });
    expect(summary(notImage)).toMatchObject({ status: 400, code: 400000 });
    const badName = await bot.multipart(t.app, '/direct/file', [['uid', ann.userId]], {
      data: Buffer.from('x'),
      fileName: `${word}.txt`,
      contentType: 'text/plain',
    });
    expect(summary(badName)).toMatchObject({ status: 403, code: 400308 });
    expect(await channelCount()).toBe(before);
    const list = await t.app.inject({ method: 'GET', url: '/client/v1/channels', headers: { authorization: `Bearer ${ann.token}` } });
    expect(list.json().channels).toEqual([]);
    // A good first picture opens it.
    const jpeg = await makeJpeg(16, 16);
    expect(
      (await bot.multipart(t.app, '/direct/picture', [['uid', ann.userId]], { data: jpeg, fileName: 'a.jpg', contentType: 'image/jpeg' })).statusCode,
    ).toBe(200);
    expect(await channelCount()).toBe(before + 1);
  });

  it('judges a file name by the blacklist like a caption, on the bot, admin and client uploads', async () => {
    const word = `zzfile${t.uniqueId('w').replace(/[^a-z0-9]/gi, '')}`;
    expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [word] })).statusCode).toBe(200);
    const ann = await user('ann');
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [ann.userId, bot.userId] });
    const file = { data: Buffer.from('x'), fileName: `${word}.txt`, contentType: 'text/plain' };
    const viaBot = await bot.multipart(t.app, '/group/file', [['gid', gid]], file);
    expect(summary(viaBot)).toMatchObject({ status: 403, code: 400308 });
    const adminBody = multipartBody([['channelId', gid]], [{ name: 'file', ...file }]);
    const viaAdmin = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/files',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': adminBody.contentType },
      payload: adminBody.payload,
    });
    expect(summary(viaAdmin)).toMatchObject({ status: 403, code: 400308 });
    const clientBody = multipartBody([], [{ name: 'file', ...file }]);
    const viaClient = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${gid}/files`,
      headers: { authorization: `Bearer ${ann.token}`, 'content-type': clientBody.contentType },
      payload: clientBody.payload,
    });
    expect(summary(viaClient)).toMatchObject({ status: 403, code: 400308 });
    const messages = await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', gid).execute();
    expect(messages).toEqual([]);
    const fine = await bot.multipart(t.app, '/group/file', [['gid', gid]], { ...file, fileName: 'notes.txt' });
    expect(fine.statusCode).toBe(200);
  });

  it("never moves a channel's lastActivity backwards (a later write stamped by an earlier clock)", async () => {
    const gid = t.uniqueId('g');
    await admin.createChannel(gid, { userIds: [bot.userId] });
    const lastActivity = async () =>
      Number((await t.storage.db.selectFrom('channels').select('last_activity').where('id', '=', gid).executeTakeFirstOrThrow()).last_activity);
    try {
      await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 120_000 });
      expect((await bot.json(t.app, '/group/message', { gid, message: text('from the future') })).statusCode).toBe(200);
      const ahead = await lastActivity();
      await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 0 });
      expect((await bot.json(t.app, '/group/message', { gid, message: text('from now') })).statusCode).toBe(200);
      expect(await lastActivity()).toBe(ahead);
    } finally {
      await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 0 });
    }
  });
});
