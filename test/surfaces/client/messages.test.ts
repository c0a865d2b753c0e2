import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEventsAfter } from '../../../src/events/outbox.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Message {
  messageId: string;
  channelId: string;
  userId: string;
  type: string;
  data: Record<string, unknown>;
  isDeleted: boolean;
  channelSegment: number;
  topicId: string | null;
}

describe.each(testDatabases)('client API messages on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string, fields: Record<string, unknown> = {}) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} person`, email: `${prefix}@example.com`, ...fields });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    const upload = (url: string, fields: Array<[string, string]>, file?: { data: Buffer; fileName: string; contentType: string }) => {
      const body = multipartBody(fields, file ? [{ name: 'file', ...file }] : []);
      return t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType }, payload: body.payload });
    };
    return { userId, token, as, upload };
  }
  type Caller = Awaited<ReturnType<typeof userWithToken>>;

  const say = (caller: Caller, channelId: string, text: string, extra: Record<string, unknown> = {}) =>
    caller.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text }, ...extra });

  async function said(caller: Caller, channelId: string, text: string, extra: Record<string, unknown> = {}): Promise<Message> {
    const response = await say(caller, channelId, text, extra);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.messages[0];
  }

  async function read(caller: Caller, channelId: string, query = ''): Promise<Message[]> {
    const response = await caller.as('GET', `/client/v1/channels/${channelId}/messages${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.messages;
  }

  function expectRefused(response: LightMyRequestResponse, status: number, code: number): void {
    expect({ status: response.statusCode, code: response.json().code }, response.body).toEqual({ status, code });
  }

  async function channelWith(...members: Caller[]): Promise<string> {
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: members.map((member) => member.userId) });
    return channelId;
  }

  async function storedCount(channelId: string): Promise<number> {
    const row = await t.storage.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  it('a member sends and reads; authors come as public profiles; non-members neither read nor write', async () => {
    const ann = await userWithToken('ann');
    const bob = await userWithToken('bob');
    const outsider = await userWithToken('outsider');
    const channelId = await channelWith(ann, bob);

    const sent = await say(ann, channelId, 'hello bob', { tags: ['greeting'] });
    expect(sent.statusCode, sent.body).toBe(200);
    const body = sent.json();
    expect(body.status).toBe('success');
    expect(body.data.messages[0]).toMatchObject({
      channelId,
      userId: ann.userId,
      type: 'text',
      data: { text: 'hello bob' },
      tags: ['greeting'],
      channelSegment: 1,
      topicId: null,
    });
    expect(body.data.users).toEqual([{ userId: ann.userId, displayName: 'ann person', avatar: '', isBot: false }]);

    const customResponse = await bob.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'custom', data: { card: { title: 'hi' } } });
    expect(customResponse.statusCode, customResponse.body).toBe(200);

    const seen = await read(bob, channelId);
    expect(seen.map((m) => [m.userId, m.type, m.channelSegment])).toEqual([
      [ann.userId, 'text', 1],
      [bob.userId, 'custom', 2],
    ]);
    const listing = (await bob.as('GET', `/client/v1/channels/${channelId}/messages`)).json();
    // Other members see names, never the operator's fields (email, roles, flags).
    expect(JSON.stringify(listing.data.users)).not.toContain('@example.com');

    expectRefused(await outsider.as('GET', `/client/v1/channels/${channelId}/messages`), 403, 400301);
    expectRefused(await say(outsider, channelId, 'let me in'), 403, 400301);
    expectRefused(await say(ann, t.uniqueId('nowhere'), 'anyone?'), 404, 400400);
    expect(await storedCount(channelId)).toBe(2);
  });

  it('checks the body like the admin API: empty text, unknown type, comments on a parent of this channel', async () => {
    const ann = await userWithToken('ann');
    const channelId = await channelWith(ann);
    const other = await channelWith(ann);
    expectRefused(await say(ann, channelId, ''), 422, 500000);
    expectRefused(await ann.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'poll', data: {} }), 400, 400000);
    expectRefused(await ann.as('POST', `/client/v1/channels/${channelId}/messages`, { data: { text: 'no type' } }), 422, 500000);
    const parent = await said(ann, channelId, 'parent');
    const comment = await said(ann, channelId, 'a comment', { parentId: parent.messageId });
    expect(comment).toMatchObject({ channelSegment: 2 });
    expect((await say(ann, other, 'wrong channel', { parentId: parent.messageId })).statusCode).toBe(404);
    expect((await read(ann, channelId, `?parentId=${parent.messageId}`)).map((m) => m.messageId)).toEqual([comment.messageId]);
    expect((await read(ann, channelId, '?filterByParentId=true')).map((m) => m.messageId)).toEqual([parent.messageId]);
  });

  it('pages like the admin query (after/first, before/last, token)', async () => {
    const ann = await userWithToken('ann');
    const channelId = await channelWith(ann);
    for (let i = 1; i <= 7; i++) await said(ann, channelId, `m${i}`);
    expect((await read(ann, channelId, '?after=2&first=3')).map((m) => m.channelSegment)).toEqual([3, 4, 5]);
    expect((await read(ann, channelId, '?before=3&last=5')).map((m) => m.channelSegment)).toEqual([1, 2]);
    const newest = (await ann.as('GET', `/client/v1/channels/${channelId}/messages?last=3`)).json();
    expect(newest.data.messages.map((m: Message) => m.channelSegment)).toEqual([5, 6, 7]);
    const older = await read(ann, channelId, `?token=${newest.paging.prev}`);
    expect(older.map((m) => m.channelSegment)).toEqual([2, 3, 4]);
    expectRefused(await ann.as('GET', `/client/v1/channels/${channelId}/messages?token=forged`), 400, 400000);
  });

  it('muted user: 400302 on send (reads still work) until unmuted; muted channel: 400303', async () => {
    const ann = await userWithToken('ann');
    const bob = await userWithToken('bob');
    const channelId = await channelWith(ann, bob);
    await said(bob, channelId, 'before the mute');

    expect((await admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { userIds: [bob.userId], mutePeriod: 3_600_000 })).statusCode).toBe(200);
    expectRefused(await say(bob, channelId, 'shh'), 403, 400302);
    expect(await read(bob, channelId)).toHaveLength(1);
    await said(ann, channelId, 'ann is not muted');
    await admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { userIds: [bob.userId], mutePeriod: 0 });
    await said(bob, channelId, 'free again');

    expect((await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 3_600_000 })).statusCode).toBe(200);
    expectRefused(await say(ann, channelId, 'silence'), 403, 400303);
    expectRefused(await say(bob, channelId, 'silence'), 403, 400303);
    expect(await read(ann, channelId)).toHaveLength(3);
    await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 0 });
    await said(ann, channelId, 'talking again');
    expect(await storedCount(channelId)).toBe(4);
  });

  it('banned from the channel: 400304 on read and send; closed channel: 409 / 400900', async () => {
    const ann = await userWithToken('ann');
    const bob = await userWithToken('bob');
    const channelId = await channelWith(ann, bob);
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [bob.userId] })).statusCode).toBe(200);
    expectRefused(await say(bob, channelId, 'am I banned?'), 403, 400304);
    expectRefused(await bob.as('GET', `/client/v1/channels/${channelId}/messages`), 403, 400304);
    await said(ann, channelId, 'still here');

    expect((await admin.call('POST', `/api/v2/channel/${channelId}/close`)).statusCode).toBe(200);
    expectRefused(await say(ann, channelId, 'closed?'), 409, 400900);
    expect(await storedCount(channelId)).toBe(1);
  });

  it('globally banned: 403 / 400312 on every message route', async () => {
    const ann = await userWithToken('ann');
    const channelId = await channelWith(ann);
    const mine = await said(ann, channelId, 'before the ban');
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: ann.userId })).statusCode).toBe(200);
    expectRefused(await say(ann, channelId, 'after the ban'), 403, 400312);
    expectRefused(await ann.as('GET', `/client/v1/channels/${channelId}/messages`), 403, 400312);
    expectRefused(await ann.as('DELETE', `/client/v1/messages/${mine.messageId}`), 403, 400312);
    const image = await ann.upload(`/client/v1/channels/${channelId}/images`, [], {
      data: await makeJpeg(20, 20),
      fileName: 'a.jpg',
      contentType: 'image/jpeg',
    });
    expectRefused(image, 403, 400312);
    await admin.call('POST', '/api/v2/users/unban', { userId: ann.userId });
    // The unban restores no credential: the old token stays revoked; a new one sends again.
    expect((await say(ann, channelId, 'with the old token')).statusCode).toBe(401);
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: ann.userId, expiresInMs: 3_600_000 });
    const again = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/messages`,
      headers: { authorization: `Bearer ${token}` },
      payload: { type: 'text', data: { text: 'after the unban' } },
    });
    expect(again.statusCode).toBe(200);
  });

  it('delete: own message yes; others only with DELETE_MESSAGE; events follow', async () => {
    const role = t.uniqueId('deleter');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['DELETE_MESSAGE'] });
    const otherRole = t.uniqueId('muter');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [otherRole], permissions: ['MUTE_CHANNEL'] });
    const ann = await userWithToken('ann');
    const bob = await userWithToken('bob');
    const muter = await userWithToken('muter', { roles: [otherRole] });
    const moderator = await userWithToken('mod', { roles: [role] });
    const channelId = await channelWith(ann, bob, muter);
    const start = await latestId();

    const first = await said(ann, channelId, 'first');
    const second = await said(ann, channelId, 'second');
    expectRefused(await bob.as('DELETE', `/client/v1/messages/${first.messageId}`), 403, 400301);
    expectRefused(await muter.as('DELETE', `/client/v1/messages/${first.messageId}`), 403, 400301);
    expectRefused(await bob.as('DELETE', '/client/v1/messages/000000000000000000000000'), 404, 400400);

    const own = await ann.as('DELETE', `/client/v1/messages/${first.messageId}`);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().data.messages[0]).toMatchObject({ messageId: first.messageId, isDeleted: true, data: {} });
    // The moderator is not even a member: the permission comes from a global role.
    const moderated = await moderator.as('DELETE', `/client/v1/messages/${second.messageId}`);
    expect(moderated.statusCode, moderated.body).toBe(200);
    expect(moderated.json().data.messages[0]).toMatchObject({ isDeleted: true });
    expect((await read(bob, channelId)).map((m) => m.isDeleted)).toEqual([true, true]);

    const events = (await readEventsAfter(t.storage.db, start, 100)).filter((event) => event.channelId === channelId);
    expect(events.map((event) => [event.type, (event.data as Message).messageId])).toEqual([
      ['message.created', first.messageId],
      ['message.created', second.messageId],
      ['message.deleted', first.messageId],
      ['message.deleted', second.messageId],
    ]);
  });

  async function latestId(): Promise<number> {
    const row = await t.storage.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  it('a channel role counts only while its holder is a member of the channel, not once banned from it', async () => {
    const role = t.uniqueId('channel-deleter');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['DELETE_MESSAGE'] });
    const ann = await userWithToken('ann');
    const mod = await userWithToken('chanmod');
    const channelId = await channelWith(ann, mod);
    // No API hands out channel roles yet; the row is where permissionsOf reads them.
    await t.storage.db
      .updateTable('channel_members')
      .set({ roles: JSON.stringify([role]) })
      .where('channel_id', '=', channelId)
      .where('user_id', '=', mod.userId)
      .execute();
    const first = await said(ann, channelId, 'first');
    const second = await said(ann, channelId, 'second');
    expect((await mod.as('DELETE', `/client/v1/messages/${first.messageId}`)).statusCode).toBe(200);
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [mod.userId] })).statusCode).toBe(200);
    expectRefused(await mod.as('DELETE', `/client/v1/messages/${second.messageId}`), 403, 400301);
    expect((await read(ann, channelId)).map((message) => message.isDeleted)).toEqual([true, false]);
  });

  it('images and files go through the admin media path; the rules apply before the upload is read', async () => {
    const ann = await userWithToken('ann');
    const outsider = await userWithToken('outsider');
    const channelId = await channelWith(ann);
    const jpeg = await makeJpeg(800, 600);

    const image = await ann.upload(
      `/client/v1/channels/${channelId}/images`,
      [
        ['caption', 'a view'],
        ['tags', 'photo'],
      ],
      { data: jpeg, fileName: 'view.jpg', contentType: 'image/jpeg' },
    );
    expect(image.statusCode, image.body).toBe(200);
    const imageMessage = image.json().data.messages[0];
    expect(imageMessage).toMatchObject({ type: 'image', userId: ann.userId, data: { caption: 'a view' }, tags: ['photo'] });
    const served = await admin.call('GET', `/api/v2/messages/${imageMessage.messageId}/images?size=small`);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');

    const file = await ann.upload(`/client/v1/channels/${channelId}/files`, [], {
      data: Buffer.from('plain words'),
      fileName: 'notes.txt',
      contentType: 'text/plain',
    });
    expect(file.statusCode, file.body).toBe(200);
    const fileMessage = file.json().data.messages[0];
    expect(fileMessage).toMatchObject({ type: 'file', data: { fileName: 'notes.txt', size: 11 } });

    // Members download through the client API; others are refused.
    const mine = await ann.as('GET', `/client/v1/messages/${imageMessage.messageId}/images?size=small`);
    expect(mine.statusCode).toBe(200);
    expect(mine.headers['content-type']).toBe('image/jpeg');
    const download = await ann.as('GET', `/client/v1/messages/${fileMessage.messageId}/files`);
    expect(download.body).toBe('plain words');
    expect(download.headers['content-disposition']).toContain('attachment');
    expectRefused(await outsider.as('GET', `/client/v1/messages/${imageMessage.messageId}/images`), 403, 400301);
    expectRefused(await outsider.as('GET', `/client/v1/messages/${fileMessage.messageId}/files`), 403, 400301);
    expectRefused(await ann.as('GET', `/client/v1/messages/${fileMessage.messageId}/images`), 404, 400400);

    expectRefused(
      await ann.upload(`/client/v1/channels/${channelId}/images`, [], { data: Buffer.from('not an image'), fileName: 'x.jpg', contentType: 'image/jpeg' }),
      400,
      400000,
    );
    expectRefused(await ann.upload(`/client/v1/channels/${channelId}/files`, [['tags', 'x']]), 422, 500000);
    expectRefused(
      await outsider.upload(`/client/v1/channels/${channelId}/images`, [], { data: jpeg, fileName: 'view.jpg', contentType: 'image/jpeg' }),
      403,
      400301,
    );
    await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 60_000 });
    expectRefused(
      await ann.upload(`/client/v1/channels/${channelId}/files`, [], { data: Buffer.from('x'), fileName: 'x.txt', contentType: 'text/plain' }),
      403,
      400303,
    );
    expect(await storedCount(channelId)).toBe(2);
  });

  it('text guards apply to member messages (blacklisted word: 400308, nothing stored)', async () => {
    const word = `forbidden${t.uniqueId('w').replace(/[^a-z0-9]/gi, '')}`;
    expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [word] })).statusCode).toBe(200);
    const ann = await userWithToken('ann');
    const channelId = await channelWith(ann);
    expectRefused(await say(ann, channelId, `this says ${word} out loud`), 403, 400308);
    const image = await ann.upload(`/client/v1/channels/${channelId}/images`, [['caption', word]], {
      data: await makeJpeg(20, 20),
      fileName: 'a.jpg',
      contentType: 'image/jpeg',
    });
    expectRefused(image, 403, 400308);
    expect(await storedCount(channelId)).toBe(0);
  });

  it('topics: a message carries its topic; topicId (or tid) lists one topic, empty lists the main topic', async () => {
    const ann = await userWithToken('ann');
    const channelId = await channelWith(ann);
    const main = await said(ann, channelId, 'main topic');
    const inRelease = await said(ann, channelId, 'about the release', { topicId: 'release' });
    await said(ann, channelId, 'about lunch', { topicId: 'lunch' });
    const alsoMain = await said(ann, channelId, 'main again', { topicId: '' });
    expect(inRelease.topicId).toBe('release');
    expect(alsoMain.topicId).toBeNull();

    expect((await read(ann, channelId, '?topicId=release')).map((m) => m.data.text)).toEqual(['about the release']);
    expect((await read(ann, channelId, '?tid=lunch')).map((m) => m.data.text)).toEqual(['about lunch']);
    expect((await read(ann, channelId, '?topicId=')).map((m) => m.messageId)).toEqual([main.messageId, alsoMain.messageId]);
    expect(await read(ann, channelId)).toHaveLength(4);
    expect(await read(ann, channelId, '?topicId=nothing-here')).toEqual([]);
    expectRefused(await ann.as('GET', `/client/v1/channels/${channelId}/messages?topicId=a&tid=b`), 422, 500000);
    expectRefused(await say(ann, channelId, 'bad topic', { topicId: 'has space' }), 422, 500000);
  });
});
