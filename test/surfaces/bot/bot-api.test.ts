import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { BuiltApp } from '../../../src/app.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type App = BuiltApp['app'];

interface Frame {
  id: number;
  type: string;
  data: { channelId?: string; userIds?: string[]; data?: { text?: string }; type?: string; topicId?: string | null };
}

/** A stream client that records frames and can wait for a condition. */
function openStream(url: string): Promise<{ socket: WebSocket; frames: Frame[]; waitFor: (test: (frames: Frame[]) => boolean) => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const frames: Frame[] = [];
    const waitFor = (test: (frames: Frame[]) => boolean) =>
      new Promise<void>((done, fail) => {
        if (test(frames)) return done();
        const timer = setTimeout(() => fail(new Error(`timed out; frames: ${JSON.stringify(frames.map((f) => [f.id, f.type]))}`)), 10_000);
        const check = () => {
          if (!test(frames)) return;
          clearTimeout(timer);
          socket.off('message', check);
          done();
        };
        socket.on('message', check);
      });
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Frame));
    socket.on('open', () => resolve({ socket, frames, waitFor }));
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

function expectRefused(response: LightMyRequestResponse, status: number, code: number): void {
  expect({ status: response.statusCode, code: response.json().code }, response.body).toEqual({ status, code });
}

/** A bot made as an operator makes one, with its token from the client_credentials grant. */
const text = (data: string) => ({ type: 'text', data });

describe.each(testDatabases)('bot API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let bot: Awaited<ReturnType<typeof createBot>>;
  let jpeg: Buffer;

  beforeAll(async () => {
    // The rate limit has its own tests below; here one bot sends far more than 30 a second.
    t = await startTestApp(database, { PARLEY_BOT_RATE_LIMIT: '1000000' }, { gateway: { heartbeatMs: 1000 } });
    admin = adminClient(t);
    bot = await createBot(t, 'Helper bot');
    jpeg = await makeJpeg(640, 480);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string, roles: string[] = []) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix, roles });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const read = async (channelId: string, query = '') => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/client/v1/channels/${channelId}/messages${query}`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data.messages as Array<{ messageId: string; userId: string; type: string; data: Record<string, unknown>; topicId: string | null }>;
    };
    return { userId, token, read };
  }

  async function groupWith(...userIds: string[]): Promise<string> {
    const channelId = t.uniqueId('group');
    await admin.createChannel(channelId, { userIds });
    return channelId;
  }

  const file = (name = 'report.txt', body = 'quarterly numbers') => ({ data: Buffer.from(body), fileName: name, contentType: 'text/plain' });
  const picture = () => ({ data: jpeg, fileName: 'chart.jpg', contentType: 'image/jpeg' });

  async function channelCount(): Promise<number> {
    const row = await t.storage.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  describe('direct', () => {
    it('message: the conversation is created on first use, the same every time, and the user reads it', async () => {
      const ann = await userWithToken('ann');
      const first = await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('Hello Ann') });
      expect(first.statusCode, first.body).toBe(200);
      const answer = first.json();
      expect(answer).toMatchObject({ status: 'success', message: { type: 'text', threadId: '', channelSegment: 1 } });
      expect(answer.message.id).toMatch(/^[0-9a-f]{24}$/);
      const conversation = answer.message.groupId as string;

      const second = (await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('Still me') })).json();
      expect(second.message.groupId).toBe(conversation);
      expect(second.message.channelSegment).toBe(2);

      expect((await ann.read(conversation)).map((m) => [m.userId, m.data.text])).toEqual([
        [bot.userId, 'Hello Ann'],
        [bot.userId, 'Still me'],
      ]);
      const channels = await t.app.inject({ method: 'GET', url: '/client/v1/channels', headers: { authorization: `Bearer ${ann.token}` } });
      const listed = channels.json().channels.find((entry: { channel: { channelId: string } }) => entry.channel.channelId === conversation);
      expect(listed.channel).toMatchObject({ type: 'conversation', memberCount: 2 });
      expect(listed.unreadCount).toBe(2);

      // Its id follows from the bot and the user; to anyone else it answers like an id that never was.
      const eve = await userWithToken('eve');
      for (const channelId of [conversation, 'dm-00000000000000000000000000000000']) {
        const peek = await t.app.inject({ method: 'GET', url: `/client/v1/channels/${channelId}/messages`, headers: { authorization: `Bearer ${eve.token}` } });
        expect({ status: peek.statusCode, code: peek.json().code }).toEqual({ status: 404, code: 400400 });
        const post = await t.app.inject({
          method: 'POST',
          url: `/client/v1/channels/${channelId}/messages`,
          headers: { authorization: `Bearer ${eve.token}` },
          payload: { type: 'text', data: { text: 'hi' } },
        });
        expect({ status: post.statusCode, code: post.json().code }).toEqual({ status: 404, code: 400400 });
      }
    });

    it('message: a client moderator cannot act on a conversation, which answers as a missing channel does', async () => {
      const ann = await userWithToken('ann');
      const conversation = (await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('private to Ann') })).json().message.groupId as string;
      const role = t.uniqueId('all-mod');
      const permissions = [
        'EDIT_CHANNEL',
        'ADD_CHANNEL_USER',
        'REMOVE_CHANNEL_USER',
        'BAN_USER_FROM_CHANNEL',
        'MUTE_CHANNEL',
        'MUTE_USER_INSIDE_CHANNEL',
        'CLOSE_CHANNEL',
      ];
      expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions })).statusCode).toBe(200);
      const mod = await userWithToken('mod', [role]);
      const as = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
        t.app.inject({ method, url, headers: { authorization: `Bearer ${mod.token}` }, ...(payload ? { payload } : {}) });
      for (const channelId of [conversation, 'dm-00000000000000000000000000000000']) {
        for (const [method, url, payload] of [
          ['POST', `/client/v1/channels/${channelId}/users`, { userIds: [mod.userId] }],
          ['PUT', `/client/v1/channels/${channelId}`, { displayName: 'mine now' }],
          ['DELETE', `/client/v1/channels/${channelId}/users`, { userIds: [ann.userId] }],
          ['POST', `/client/v1/channels/${channelId}/users/ban`, { userIds: [ann.userId] }],
          ['PUT', `/client/v1/channels/${channelId}/mute`, { mutePeriod: 1000 }],
          ['PUT', `/client/v1/channels/${channelId}/users/mute`, { mutePeriod: 1000, userIds: [ann.userId] }],
          ['POST', `/client/v1/channels/${channelId}/close`, undefined],
        ] as const) {
          const response = await as(method, url, payload);
          expect({ url, status: response.statusCode, code: response.json().code }).toEqual({ url, status: 404, code: 400400 });
        }
      }
      const read = await t.app.inject({
        method: 'GET',
        url: `/client/v1/channels/${conversation}/messages`,
        headers: { authorization: `Bearer ${mod.token}` },
      });
      expect(read.statusCode).toBe(404);
      expect((await ann.read(conversation)).map((m) => m.data.text)).toEqual(['private to Ann']);
    });

    it('message: concurrent first sends share one conversation', async () => {
      const kim = await userWithToken('kim');
      const before = await channelCount();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => bot.json(t.app, '/direct/message', { uid: kim.userId, message: text(`burst ${i}`) })),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(12).fill(200));
      const groups = new Set(answers.map((answer) => answer.json().message.groupId));
      expect(groups.size).toBe(1);
      expect(await channelCount()).toBe(before + 1);
      expect(answers.map((answer) => answer.json().message.channelSegment).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await kim.read([...groups][0] as string)).toHaveLength(12);
    });

    it('message: missing uid, missing or empty text, unknown user, itself, wrong type are clear 4xx', async () => {
      const ann = await userWithToken('ann');
      const before = await channelCount();
      expectRefused(await bot.json(t.app, '/direct/message', { message: text('to whom?') }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: { type: 'text' } }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('') }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('   ') }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('x'.repeat(20_001)) }), 422, 500000);
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: { type: 'image', data: 'hi' } }), 400, 400000);
      const unknown = await bot.json(t.app, '/direct/message', { uid: 'nobody-at-all', message: text('hello?') });
      expectRefused(unknown, 404, 400400);
      expect(unknown.json().message).toBe('User not found.');
      expectRefused(await bot.json(t.app, '/direct/message', { uid: bot.userId, message: text('me, myself') }), 400, 400000);
      // A malformed body or a wrong content type is a 400 in the envelope too.
      const malformed = await t.app.inject({
        method: 'POST',
        url: '/bot/v1/direct/message',
        headers: { authorization: `Bearer ${bot.token}`, 'content-type': 'application/json' },
        payload: '{"uid":',
      });
      expectRefused(malformed, 400, 400000);
      // None of these left a conversation behind.
      expect(await channelCount()).toBe(before);
    });

    it('picture: goes through the media path, with caption; bad image and missing file are refused', async () => {
      const ann = await userWithToken('ann');
      const sent = await bot.multipart(
        t.app,
        '/direct/picture',
        [
          ['uid', ann.userId],
          ['caption', 'the chart'],
        ],
        picture(),
      );
      expect(sent.statusCode, sent.body).toBe(200);
      expect(sent.json()).toMatchObject({ status: 'success', message: { type: 'image', threadId: '' } });
      const [message] = await ann.read(sent.json().message.groupId);
      expect(message).toMatchObject({ type: 'image', userId: bot.userId, data: { caption: 'the chart' } });
      const small = await admin.call('GET', `/api/v2/messages/${message?.messageId}/images?size=small`);
      expect(small.statusCode).toBe(200);
      expect(small.headers['content-type']).toBe('image/jpeg');

      expectRefused(
        await bot.multipart(t.app, '/direct/picture', [['uid', ann.userId]], {
          data: Buffer.from('not a picture'),
          fileName: 'x.jpg',
          contentType: 'image/jpeg',
        }),
        400,
        400000,
      );
      expectRefused(
        await bot.multipart(t.app, '/direct/picture', [
          ['uid', ann.userId],
          ['caption', 'no file'],
        ]),
        422,
        500000,
      );
      expectRefused(await bot.multipart(t.app, '/direct/picture', [['caption', 'no uid']], picture()), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/direct/picture', [['uid', 'nobody-at-all']], picture()), 404, 400400);
      expectRefused(await bot.json(t.app, '/direct/picture', { uid: ann.userId }), 400, 400000);
    });

    it('file: stored as uploaded and listed in the same conversation', async () => {
      const ann = await userWithToken('ann');
      const greeting = (await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('a file follows') })).json();
      const sent = await bot.multipart(t.app, '/direct/file', [['uid', ann.userId]], file());
      expect(sent.statusCode, sent.body).toBe(200);
      expect(sent.json()).toMatchObject({ status: 'success', message: { type: 'file', groupId: greeting.message.groupId, channelSegment: 2 } });
      const messages = await ann.read(greeting.message.groupId);
      expect(messages[1]).toMatchObject({ type: 'file', data: { fileName: 'report.txt', contentType: 'text/plain', size: 17 } });
      const download = await admin.call('GET', `/api/v2/messages/${messages[1]?.messageId}/files`);
      expect(download.body).toBe('quarterly numbers');

      expectRefused(await bot.multipart(t.app, '/direct/file', [['uid', ann.userId]]), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/direct/file', [], file()), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/direct/file', [['uid', 'nobody-at-all']], file()), 404, 400400);
    });
  });

  describe('group', () => {
    it('message: main topic without tid or with an empty one, a named topic with tid; the client lists one topic', async () => {
      const ann = await userWithToken('ann');
      const gid = await groupWith(ann.userId, bot.userId);
      const main = await bot.json(t.app, '/group/message', { gid, message: text('main without tid') });
      expect(main.statusCode, main.body).toBe(200);
      expect(main.json()).toMatchObject({ status: 'success', message: { type: 'text', groupId: gid, threadId: '' } });
      expect((await bot.json(t.app, '/group/message', { gid, tid: '', message: text('main with empty tid') })).json().message.threadId).toBe('');
      const topical = await bot.json(t.app, '/group/message', { gid, tid: 'release-42', message: text('in the release topic') });
      expect(topical.json()).toMatchObject({ message: { groupId: gid, threadId: 'release-42' } });

      expect((await ann.read(gid, '?tid=release-42')).map((m) => [m.data.text, m.topicId])).toEqual([['in the release topic', 'release-42']]);
      expect((await ann.read(gid, '?topicId=')).map((m) => m.data.text)).toEqual(['main without tid', 'main with empty tid']);
      expect(await ann.read(gid)).toHaveLength(3);
    });

    it('message: missing gid, missing text, unknown group, a group the bot is not in, a conversation id are clear 4xx', async () => {
      const ann = await userWithToken('ann');
      const gid = await groupWith(ann.userId, bot.userId);
      const elsewhere = await groupWith(ann.userId);
      expectRefused(await bot.json(t.app, '/group/message', { tid: 't', message: text('where?') }), 422, 500000);
      expectRefused(await bot.json(t.app, '/group/message', { gid }), 422, 500000);
      expectRefused(await bot.json(t.app, '/group/message', { gid, message: text('') }), 422, 500000);
      expectRefused(await bot.json(t.app, '/group/message', { gid, tid: 'has space', message: text('bad topic') }), 422, 500000);
      const unknown = await bot.json(t.app, '/group/message', { gid: 'no-such-group', message: text('hello?') });
      expectRefused(unknown, 404, 400400);
      expect(unknown.json().message).toBe('Group not found.');
      expectRefused(await bot.json(t.app, '/group/message', { gid: elsewhere, message: text('let me in') }), 403, 400301);
      const direct = (await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('hi') })).json();
      expectRefused(await bot.json(t.app, '/group/message', { gid: direct.message.groupId, message: text('a conversation is no group') }), 404, 400400);
      expect(await ann.read(elsewhere)).toEqual([]);
    });

    it('picture and file: land in the group and topic; bad input is refused', async () => {
      const ann = await userWithToken('ann');
      const gid = await groupWith(ann.userId, bot.userId);
      const pictured = await bot.multipart(
        t.app,
        '/group/picture',
        [
          ['gid', gid],
          ['tid', 'charts'],
          ['caption', 'weekly'],
        ],
        picture(),
      );
      expect(pictured.statusCode, pictured.body).toBe(200);
      expect(pictured.json()).toMatchObject({ status: 'success', message: { type: 'image', groupId: gid, threadId: 'charts' } });
      const filed = await bot.multipart(
        t.app,
        '/group/file',
        [
          ['gid', gid],
          ['tid', ''],
        ],
        file('notes.md', '# notes'),
      );
      expect(filed.statusCode, filed.body).toBe(200);
      expect(filed.json()).toMatchObject({ message: { type: 'file', groupId: gid, threadId: '' } });
      expect((await ann.read(gid, '?tid=charts')).map((m) => [m.type, m.data.caption])).toEqual([['image', 'weekly']]);
      expect((await ann.read(gid, '?tid=')).map((m) => [m.type, m.data.fileName])).toEqual([['file', 'notes.md']]);

      expectRefused(
        await bot.multipart(t.app, '/group/picture', [['gid', gid]], { data: Buffer.from('GIF89a broken'), fileName: 'x.gif', contentType: 'image/gif' }),
        400,
        400000,
      );
      expectRefused(await bot.multipart(t.app, '/group/picture', [['gid', gid]]), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/group/picture', [['caption', 'no gid']], picture()), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/group/file', [['gid', gid]]), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/group/file', [], file()), 422, 500000);
      expectRefused(await bot.multipart(t.app, '/group/file', [['gid', 'no-such-group']], file()), 404, 400400);
      expect(await ann.read(gid)).toHaveLength(2);
    });
  });

  describe('rules', () => {
    it('blacklist and whitelist apply to texts and captions; nothing is stored', async () => {
      const word = `verboten${t.uniqueId('w').replace(/[^a-z0-9]/gi, '')}`;
      expect((await admin.call('POST', '/api/v2/blacklist/records', { regexs: [word] })).statusCode).toBe(200);
      const ann = await userWithToken('ann');
      const gid = await groupWith(ann.userId, bot.userId);
      const before = await channelCount();
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text(`say ${word}`) }), 403, 400308);
      expectRefused(
        await bot.multipart(
          t.app,
          '/direct/picture',
          [
            ['uid', ann.userId],
            ['caption', word],
          ],
          picture(),
        ),
        403,
        400308,
      );
      // A refused first message leaves no empty conversation behind.
      expect(await channelCount()).toBe(before);
      expectRefused(await bot.json(t.app, '/group/message', { gid, message: text(`${word}!`) }), 403, 400308);
      expectRefused(
        await bot.multipart(
          t.app,
          '/group/picture',
          [
            ['gid', gid],
            ['caption', word],
          ],
          picture(),
        ),
        403,
        400308,
      );

      const rule = await admin.call('POST', '/api/v2/whitelist/records', { regexs: ['https://docs.example.com'] });
      expect(rule.statusCode).toBe(200);
      try {
        expectRefused(await bot.json(t.app, '/group/message', { gid, message: text('see https://evil.example.net/x') }), 403, 400309);
        expect((await bot.json(t.app, '/group/message', { gid, message: text('see https://docs.example.com/guide') })).statusCode).toBe(200);
      } finally {
        await admin.call('DELETE', '/api/v2/whitelist/records', { ruleIds: rule.json().data.results.map((r: { ruleId: string }) => r.ruleId) });
      }
      expect((await ann.read(gid)).map((m) => m.data.text)).toEqual(['see https://docs.example.com/guide']);
    });

    it('channel mute, bot mute, channel ban and a closed channel refuse bot messages', async () => {
      const ann = await userWithToken('ann');
      const gid = await groupWith(ann.userId, bot.userId);
      const send = () => bot.json(t.app, '/group/message', { gid, message: text('ping') });
      const sendPicture = () => bot.multipart(t.app, '/group/picture', [['gid', gid]], picture());

      await admin.call('PUT', `/api/v2/channel/${gid}/mute`, { mutePeriod: 60_000 });
      expectRefused(await send(), 403, 400303);
      expectRefused(await sendPicture(), 403, 400303);
      await admin.call('PUT', `/api/v2/channel/${gid}/mute`, { mutePeriod: 0 });

      await admin.call('PUT', `/api/v2/channel/${gid}/users/mute`, { userIds: [bot.userId], mutePeriod: 60_000 });
      expectRefused(await send(), 403, 400302);
      await admin.call('PUT', `/api/v2/channel/${gid}/users/mute`, { userIds: [bot.userId], mutePeriod: 0 });
      expect((await send()).statusCode).toBe(200);

      await admin.call('POST', `/api/v2/channel/${gid}/users/ban`, { userIds: [bot.userId] });
      expectRefused(await send(), 403, 400304);
      expectRefused(await bot.multipart(t.app, '/group/file', [['gid', gid]], file()), 403, 400304);
      await admin.call('POST', `/api/v2/channel/${gid}/users/unban`, { userIds: [bot.userId] });
      await admin.call('POST', `/api/v2/channel/${gid}/users`, { userIds: [bot.userId] });
      expect((await send()).statusCode).toBe(200);

      await admin.call('POST', `/api/v2/channel/${gid}/close`);
      expectRefused(await send(), 409, 400900);

      // The same rules hold in the bot's conversation.
      const direct = (await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('hi') })).json();
      await admin.call('PUT', `/api/v2/channel/${direct.message.groupId}/mute`, { mutePeriod: 60_000 });
      expectRefused(await bot.json(t.app, '/direct/message', { uid: ann.userId, message: text('muted?') }), 403, 400303);
      expectRefused(await bot.multipart(t.app, '/direct/file', [['uid', ann.userId]], file()), 403, 400303);
    });

    it('only bot tokens pass; a globally banned bot is refused with 400312', async () => {
      const ann = await userWithToken('ann');
      const payload = { uid: ann.userId, message: text('hello') };
      expectRefused(await t.app.inject({ method: 'POST', url: '/bot/v1/direct/message', payload }), 401, 400100);
      expectRefused(
        await t.app.inject({ method: 'POST', url: '/bot/v1/direct/message', headers: { authorization: `Bearer ${ann.token}` }, payload }),
        403,
        400300,
      );
      expectRefused(
        await t.app.inject({ method: 'POST', url: '/bot/v1/direct/message', headers: { authorization: `Bearer ${t.adminToken}` }, payload }),
        403,
        400300,
      );
      const upload = multipartBody([['uid', ann.userId]], [{ name: 'file', ...file() }]);
      expectRefused(
        await t.app.inject({
          method: 'POST',
          url: '/bot/v1/direct/file',
          headers: { authorization: `Bearer ${ann.token}`, 'content-type': upload.contentType },
          payload: upload.payload,
        }),
        403,
        400300,
      );

      const banned = await createBot(t, 'Doomed bot');
      expect((await banned.json(t.app, '/direct/message', payload)).statusCode).toBe(200);
      await admin.call('POST', '/api/v2/users/ban', { userId: banned.userId });
      expectRefused(await banned.json(t.app, '/direct/message', payload), 403, 400312);
      expectRefused(await banned.multipart(t.app, '/direct/file', [['uid', ann.userId]], file()), 403, 400312);
    });
  });

  it("a bot's messages reach the user's socket: a first direct message, then a group message in a topic", async () => {
    const lee = await userWithToken('lee');
    const gid = await groupWith(lee.userId, bot.userId);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await openStream(`${address.replace('http', 'ws')}/client/v1/stream?token=${lee.token}`);
    try {
      const direct = (await bot.json(t.app, '/direct/message', { uid: lee.userId, message: text('first contact') })).json();
      await stream.waitFor((frames) => frames.some((f) => f.type === 'message.created' && f.data.data?.text === 'first contact'));
      const created = stream.frames.find((f) => f.type === 'message.created');
      expect(created?.data).toMatchObject({ channelId: direct.message.groupId, type: 'text', topicId: null });
      // The conversation was created while the socket was open: its member.added came first.
      expect(stream.frames.findIndex((f) => f.type === 'member.added' && f.data.channelId === direct.message.groupId)).toBeLessThan(
        stream.frames.indexOf(created as Frame),
      );

      await bot.json(t.app, '/group/message', { gid, tid: 'ops', message: text('deploy done') });
      await stream.waitFor((frames) => frames.some((f) => f.type === 'message.created' && f.data.data?.text === 'deploy done'));
      expect(stream.frames.find((f) => f.data.data?.text === 'deploy done')?.data).toMatchObject({ channelId: gid, topicId: 'ops' });
      const ids = stream.frames.map((f) => f.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    } finally {
      stream.socket.close();
    }
  });
});

describe.each(testDatabases)('bot rate limit on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    // A long window, so the test does not depend on how fast the requests go.
    t = await startTestApp(database, { PARLEY_BOT_RATE_LIMIT: '3', PARLEY_BOT_RATE_WINDOW_MS: '60000' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a bot over its budget with 429 / 400311 and Retry-After; other bots keep theirs', async () => {
    const admin = adminClient(t);
    const userId = t.uniqueId('ann');
    await admin.createUser(userId);
    const chatty = await createBot(t, 'Chatty');
    const quiet = await createBot(t, 'Quiet');
    const send = (caller: typeof chatty) => caller.json(t.app, '/direct/message', { uid: userId, message: text('hi') });
    for (let i = 0; i < 3; i++) expect((await send(chatty)).statusCode).toBe(200);
    const refused = await send(chatty);
    expectRefused(refused, 429, 400311);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Every endpoint draws on the same budget.
    const upload = multipartBody([['uid', userId]], [{ name: 'file', data: Buffer.from('x'), fileName: 'x.txt', contentType: 'text/plain' }]);
    const file = await t.app.inject({
      method: 'POST',
      url: '/bot/v1/direct/file',
      headers: { authorization: `Bearer ${chatty.token}`, 'content-type': upload.contentType },
      payload: upload.payload,
    });
    expectRefused(file, 429, 400311);
    expect((await send(quiet)).statusCode).toBe(200);
    const stored = await t.storage.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', chatty.userId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(3);
  });
});

const scaleOut = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
if (!scaleOut) process.stdout.write('bot API two-instance tests skipped: they need TEST_DATABASE_URL and TEST_REDIS_URL.\n');

describe.skipIf(!scaleOut)('bot API on two instances (one PostgreSQL, one Redis)', () => {
  let a: TestApp;
  let b: BuiltApp;

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL as string, PARLEY_BOT_RATE_LIMIT: '3', PARLEY_BOT_RATE_WINDOW_MS: '60000' };
    a = await startTestApp('postgres', env);
    // B never polls on its own: only the Redis wake-up from A brings it A's events quickly.
    b = await a.startPeer(env, { relayPollMs: 3_600_000 });
  });
  afterAll(async () => {
    await a?.close();
  });

  it('a bot message sent to instance A arrives on a socket held by instance B', async () => {
    const admin = adminClient(a);
    const userId = a.uniqueId('nina');
    await admin.createUser(userId);
    const { token } = await createTokensService({ db: a.storage.db, clock: a.clock }).issue({ kind: 'user', userId, expiresInMs: 60_000 });
    const bot = await createBot(a, 'Across bot');
    const gid = a.uniqueId('across');
    await admin.createChannel(gid, { userIds: [userId, bot.userId] });
    const address = await b.app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await openStream(`${address.replace('http', 'ws')}/client/v1/stream?token=${token}`);
    try {
      const sent = await bot.json(a.app, '/group/message', { gid, message: text('from A') });
      expect(sent.statusCode, sent.body).toBe(200);
      await stream
        .waitFor((frames) => frames.some((f) => f.type === 'message.created' && f.data.data?.text === 'from A'))
        .catch(async (error: unknown) => {
          // Where each relay stood and what the outbox held: enough to tell a lost wake-up from a routing miss.
          const rows = await a.storage.db.selectFrom('outbox').select(['id', 'type']).execute();
          process.stdout.write(`relay positions: A=${a.events.relay.position} B=${b.events.relay.position}; outbox=${JSON.stringify(rows)}\n`);
          throw error;
        });
      expect(stream.frames.find((f) => f.type === 'message.created')?.data).toMatchObject({ channelId: gid, messageId: sent.json().message.id });
    } finally {
      stream.socket.close();
    }
  });

  it('counts a bot against one budget across instances', async () => {
    const admin = adminClient(a);
    const userId = a.uniqueId('omar');
    await admin.createUser(userId);
    const bot = await createBot(a, 'Shared budget bot');
    const send = (app: App) => bot.json(app, '/direct/message', { uid: userId, message: text('hi') });
    expect((await send(a.app)).statusCode).toBe(200);
    expect((await send(b.app)).statusCode).toBe(200);
    expect((await send(a.app)).statusCode).toBe(200);
    expectRefused(await send(b.app), 429, 400311);
    expectRefused(await send(a.app), 429, 400311);
  });
});
