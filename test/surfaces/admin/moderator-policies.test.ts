import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkAdmins } from '../../../src/modules/identity/network-admins.js';
import { PERMISSIONS } from '../../../src/modules/roles/permissions.js';
import { accessOf } from '../../../src/surfaces/admin/console-access.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { makeJpeg, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from '../console/console-signin.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * What a moderator holding every permission still may not do, on every route that could: act on a
 * network admin (ban, mute, remove, add, edit, review), through the console's admin API or the client
 * API; or see a bot's conversation with a person, on any admin read, list or write.
 */
describe.each(testDatabases)('moderators and the policies, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  const password = 'policy password 1';
  let rootId: string;
  let rootToken: string;
  let moderatorId: string;
  let moderatorConsole: string;
  let moderatorClient: string;
  let aliceId: string;
  let room: string;
  let conversation: string;
  let conversationText: string;
  let conversationImage: string;
  let conversationFile: string;
  let aliceInConversation: string;

  const call = (token: string, method: Method, url: string, body?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body } : {}) });
  const consoleToken = async (username: string): Promise<string> => {
    const signedIn = await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) });
    expect(signedIn.status, signedIn.body).toBe(200);
    return signedIn.accessToken as string;
  };
  const mint = async (userId: string): Promise<string> => (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 })).json().accessToken;
  const outcome = (response: LightMyRequestResponse) => ({ status: response.statusCode, code: (response.json() as { code?: number }).code ?? null });

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
    const rootName = t.uniqueId('root');
    rootId = (await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username: rootName, password, displayName: 'Root' })).userId;
    rootToken = await consoleToken(rootName);
    const role = t.uniqueId('everything');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: [...PERMISSIONS] });
    moderatorId = t.uniqueId('mod');
    await admin.createUser(moderatorId, { username: moderatorId, password, displayName: 'Moderator', roles: [role] });
    moderatorConsole = await consoleToken(moderatorId);
    moderatorClient = await mint(moderatorId);
    aliceId = t.uniqueId('alice');
    await admin.createUser(aliceId, { displayName: 'Alice' });
    room = t.uniqueId('room');
    await admin.createChannel(room, { userIds: [rootId, aliceId, moderatorId] });
    // A bot's conversation with Alice: a text, a picture and a file from the bot, and Alice's answer.
    const bot = await createBot(t, 'Helper');
    const sent = await bot.json(t.app, '/direct/message', { uid: aliceId, message: { type: 'text', data: 'Your lab results are ready' } });
    expect(sent.statusCode, sent.body).toBe(200);
    conversation = sent.json().message.groupId;
    conversationText = sent.json().message.id;
    const picture = await bot.multipart(t.app, '/direct/picture', [['uid', aliceId]], {
      data: await makeJpeg(32, 32),
      fileName: 'x.jpg',
      contentType: 'image/jpeg',
    });
    expect(picture.statusCode, picture.body).toBe(200);
    conversationImage = picture.json().message.id;
    const file = await bot.multipart(t.app, '/direct/file', [['uid', aliceId]], {
      data: Buffer.from('private'),
      fileName: 'x.txt',
      contentType: 'text/plain',
    });
    expect(file.statusCode, file.body).toBe(200);
    conversationFile = file.json().message.id;
    const alice = await mint(aliceId);
    const answered = await call(alice, 'POST', `/client/v1/channels/${conversation}/messages`, { type: 'text', data: { text: 'Thanks, private answer' } });
    expect(answered.statusCode, answered.body).toBeLessThan(300);
    aliceInConversation = answered.json().data?.messages?.[0]?.messageId ?? answered.json().messageId ?? answered.json().message?.messageId;
    await call(alice, 'POST', `/client/v1/messages/${conversationText}/reactions`, { reactionName: 'like' });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('a moderator never acts on a network admin', () => {
    /** Every admin route a moderator may call that names people, with the network admin as the person. */
    const adminCases = (): Array<[Method, string, string, () => Promise<LightMyRequestResponse>]> => [
      ['POST', '/api/v2/channel/:channelId/users/ban', 'ban', () => call(moderatorConsole, 'POST', `/api/v2/channel/${room}/users/ban`, { userIds: [rootId] })],
      [
        'POST',
        '/api/v2/channel/:channelId/users/unban',
        'unban',
        () => call(moderatorConsole, 'POST', `/api/v2/channel/${room}/users/unban`, { userIds: [rootId] }),
      ],
      [
        'PUT',
        '/api/v2/channel/:channelId/users/mute',
        'mute',
        () => call(moderatorConsole, 'PUT', `/api/v2/channel/${room}/users/mute`, { userIds: [rootId], mutePeriod: 60_000 }),
      ],
      ['DELETE', '/api/v2/channel/:channelId/users', 'remove', () => call(moderatorConsole, 'DELETE', `/api/v2/channel/${room}/users`, { userIds: [rootId] })],
      [
        'POST',
        '/api/v2/channel/:channelId/users',
        'add',
        async () => {
          const other = t.uniqueId('other');
          await admin.createChannel(other);
          return call(moderatorConsole, 'POST', `/api/v2/channel/${other}/users`, { userIds: [rootId] });
        },
      ],
      [
        'POST',
        '/api/v2/channel',
        'create with',
        () => call(moderatorConsole, 'POST', '/api/v2/channel', { channelId: t.uniqueId('new'), type: 'standard', userIds: [rootId] }),
      ],
      ['PUT', '/api/v2/users', 'edit', () => call(moderatorConsole, 'PUT', '/api/v2/users', { userId: rootId, displayName: 'Owned' })],
      [
        'PUT',
        '/api/v2/users/:userId/avatar',
        'avatar',
        async () => {
          const body = multipartBody([], [{ name: 'file', fileName: 'a.jpg', contentType: 'image/jpeg', data: await makeJpeg(16, 16) }]);
          return t.app.inject({
            method: 'PUT',
            url: `/api/v2/users/${rootId}/avatar`,
            headers: { authorization: `Bearer ${moderatorConsole}`, 'content-type': body.contentType },
            payload: body.payload,
          });
        },
      ],
      ['DELETE', '/api/v2/users/:userId/flags', 'clear flags', () => call(moderatorConsole, 'DELETE', `/api/v2/users/${rootId}/flags`)],
      ['POST', '/api/v2/users/ban', 'global ban', () => call(moderatorConsole, 'POST', '/api/v2/users/ban', { userId: rootId })],
      ['POST', '/api/v2/users/unban', 'global unban', () => call(moderatorConsole, 'POST', '/api/v2/users/unban', { userId: rootId })],
    ];

    it('covers every admin route a moderator may call that declares the people it acts on', () => {
      const declaring = t.routes
        .filter((route) => route.url.startsWith('/api/v2/') && route.method !== 'HEAD')
        .filter((route) => {
          const access = accessOf(route.config);
          return access !== null && access.anyOf.length > 0 && access.targets.some((target) => target === 'users' || target === 'userWrite');
        })
        .map((route) => `${route.method} ${route.url}`);
      expect(
        adminCases()
          .map(([method, url]) => `${method} ${url}`)
          .sort(),
      ).toEqual(declaring.sort());
    });

    it('is refused on each of those admin routes, and the network admin is untouched', async () => {
      const outcomes: Record<string, unknown> = {};
      for (const [method, url, what, send] of adminCases()) outcomes[`${what}: ${method} ${url}`] = outcome(await send());
      for (const [name, answer] of Object.entries(outcomes)) expect(answer, name).toEqual({ status: 403, code: 400301 });
      const member = await admin.call('GET', `/api/v2/channel/${room}/users?limit=50`);
      const root = (member.json().users ?? member.json().channelUsers ?? member.json().data?.channelUsers ?? []) as Array<{
        userId: string;
        membership?: string;
      }>;
      expect(JSON.stringify(member.json())).toContain(rootId);
      expect(root.find((row) => row.userId === rootId)?.membership ?? 'member').toBe('member');
      const user = await admin.call('GET', `/api/v2/users/${rootId}`);
      expect(user.json().user?.displayName ?? user.json().displayName).toBe('Root');
      expect(JSON.stringify(user.json())).not.toContain('"isGlobalBan":true');
    });

    it('is refused on the client API moderation routes too', async () => {
      const routes: Array<[string, () => Promise<LightMyRequestResponse>]> = [
        ['ban', () => call(moderatorClient, 'POST', `/client/v1/channels/${room}/users/ban`, { userIds: [rootId] })],
        ['unban', () => call(moderatorClient, 'POST', `/client/v1/channels/${room}/users/unban`, { userIds: [rootId] })],
        ['mute', () => call(moderatorClient, 'PUT', `/client/v1/channels/${room}/users/mute`, { userIds: [rootId], mutePeriod: 60_000 })],
        ['remove', () => call(moderatorClient, 'DELETE', `/client/v1/channels/${room}/users`, { userIds: [rootId] })],
        ['global ban', () => call(moderatorClient, 'POST', `/client/v1/users/${rootId}/ban`)],
      ];
      for (const [name, send] of routes) expect(outcome(await send()), name).toEqual({ status: 403, code: 400301 });
    });

    it('is refused in the moderation queue: no author action on a network admin, no review of one', async () => {
      const rootMessage = await call(rootToken, 'POST', '/api/v2/message', { channelId: room, type: 'text', data: { text: 'From root' } });
      expect(rootMessage.statusCode, rootMessage.body).toBe(200);
      const messageId = rootMessage.json().data.messages[0].messageId;
      const alice = await mint(aliceId);
      expect((await call(alice, 'POST', `/client/v1/messages/${messageId}/flag`, { reason: 'Rude' })).statusCode).toBeLessThan(300);
      expect((await call(alice, 'POST', `/client/v1/users/${rootId}/flag`)).statusCode).toBeLessThan(300);
      const banAuthor = await call(moderatorConsole, 'POST', `/api/v2/moderation/messages/${messageId}/review`, {
        decision: 'dismiss',
        author: { action: 'ban', minutes: 60 },
      });
      expect(outcome(banAuthor)).toEqual({ status: 403, code: 400301 });
      const reviewUser = await call(moderatorConsole, 'POST', `/api/v2/moderation/users/${rootId}/review`, { decision: 'globalBan' });
      expect(outcome(reviewUser)).toEqual({ status: 403, code: 400301 });
      // A network admin may.
      const byRoot = await call(rootToken, 'POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'dismiss' });
      expect(byRoot.statusCode, byRoot.body).toBe(200);
    });
  });

  describe("a bot's conversation does not exist for a moderator", () => {
    const reads = (): Array<[Method, string, string]> => [
      ['POST', '/api/v2/messages', '/api/v2/messages'],
      ['GET', '/api/v2/message/:messageId', `/api/v2/message/${conversationText}`],
      ['GET', '/api/v2/messages/:messageId/images', `/api/v2/messages/${conversationImage}/images`],
      ['GET', '/api/v2/messages/:messageId/files', `/api/v2/messages/${conversationFile}/files`],
      ['GET', '/api/v2/reactions', `/api/v2/reactions?referenceId=${conversationText}&referenceType=message`],
      ['GET', '/api/v2/channel/:channelId', `/api/v2/channel/${conversation}`],
      ['GET', '/api/v2/channel/:channelId/users', `/api/v2/channel/${conversation}/users`],
    ];
    const send = (token: string, method: Method, url: string) =>
      method === 'POST' ? call(token, 'POST', url, { channelId: conversation }) : call(token, method, url);

    it('covers every admin read a moderator may make of one channel or message', () => {
      const declaring = t.routes
        .filter(
          (route) =>
            route.url.startsWith('/api/v2/') && route.method !== 'HEAD' && route.url !== '/api/v2/messages/images' && route.url !== '/api/v2/messages/files',
        )
        .filter((route) => {
          const access = accessOf(route.config);
          const reads = route.method === 'GET' || route.url === '/api/v2/messages';
          return reads && access !== null && access.anyOf.length > 0 && access.targets.some((target) => target === 'channel' || target === 'message');
        })
        .map((route) => `${route.method} ${route.url}`);
      expect(
        reads()
          .map(([method, route]) => `${method} ${route}`)
          .sort(),
      ).toEqual(declaring.sort());
    });

    it('answers 404 on every read of it or its messages, which a network admin reads', async () => {
      const outcomes: Record<string, { moderator: number; networkAdmin: number }> = {};
      for (const [method, route, url] of reads()) {
        outcomes[`${method} ${route}`] = {
          moderator: (await send(moderatorConsole, method, url)).statusCode,
          networkAdmin: (await send(rootToken, method, url)).statusCode,
        };
      }
      for (const [name, answer] of Object.entries(outcomes)) expect(answer, name).toEqual({ moderator: 404, networkAdmin: 200 });
    });

    it("leaves it out of every list: channels, most reacted, a person's messages, the queue", async () => {
      const lists: Array<[string, string, Record<string, unknown> | undefined]> = [
        ['POST', '/api/v2/channels', { userId: aliceId, options: { limit: 100 } }],
        ['GET', '/api/v2/reactions/messages/most?reactionName=like&limit=100', undefined],
        ['GET', `/api/v2/users/${aliceId}/messages?limit=100`, undefined],
      ];
      for (const [method, url, body] of lists) {
        const byModerator = JSON.stringify((await call(moderatorConsole, method as Method, url, body)).json());
        const byRoot = JSON.stringify((await call(rootToken, method as Method, url, body)).json());
        const marker = url.includes('/messages?') ? aliceInConversation : url.includes('most') ? conversationText : conversation;
        expect(byRoot, `${url} as a network admin`).toContain(marker);
        expect(byModerator, `${url} as a moderator`).not.toContain(marker);
        expect(byModerator, `${url} as a moderator`).not.toContain('private answer');
      }
    });

    it('answers 404 to every write on it: delete, rename, join, mute, close', async () => {
      const writes: Array<[Method, string, Record<string, unknown> | undefined]> = [
        ['DELETE', `/api/v2/message/${conversationText}`, undefined],
        ['POST', `/api/v2/channel/${conversation}/displayName`, { displayName: 'Mine now' }],
        ['POST', `/api/v2/channel/${conversation}/users`, { userIds: [moderatorId] }],
        ['PUT', `/api/v2/channel/${conversation}/mute`, { mutePeriod: 60_000 }],
        ['POST', `/api/v2/channel/${conversation}/close`, undefined],
      ];
      for (const [method, url, body] of writes) expect((await call(moderatorConsole, method, url, body)).statusCode, `${method} ${url}`).toBe(404);
      const still = await call(rootToken, 'GET', `/api/v2/message/${conversationText}`);
      expect(still.json().message?.isDeleted ?? still.json().data?.messages?.[0]?.isDeleted ?? false).toBe(false);
    });
  });
});
