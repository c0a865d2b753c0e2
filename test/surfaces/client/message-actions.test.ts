import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Frame {
  id: number;
  type: string;
  data: {
    reaction?: { referenceId: string; reactionName: string; userId: string };
    message?: { messageId: string; reactions: Record<string, number>; reactionsCount: number };
  };
}

describe.each(testDatabases)('client message reactions and flags on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, token, as };
  }

  async function channelWith(userIds: string[]): Promise<string> {
    const channelId = t.uniqueId('chat');
    await admin.createChannel(channelId, { userIds });
    return channelId;
  }

  async function adminMessage(channelId: string): Promise<string> {
    const response = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'hi all' } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.messages[0].messageId;
  }

  async function messageOf(messageId: string) {
    return (await admin.call('GET', `/api/v2/message/${messageId}`)).json().message as {
      reactions: Record<string, number>;
      reactionsCount: number;
      flagCount: number;
    };
  }

  it('lets a member react and take the reaction back; the answer carries the new summary', async () => {
    const ann = await userWithToken('ann');
    const messageId = await adminMessage(await channelWith([ann.userId]));
    const added = await ann.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json()).toMatchObject({ status: 'success', reactions: { like: 1 }, reactionsCount: 1 });
    const again = await ann.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 400315 });

    const reactors = (await admin.call('GET', `/api/v2/reactions?referenceId=${messageId}`)).json().data.reactions[0].reactors;
    expect(reactors).toEqual([expect.objectContaining({ userId: ann.userId, reactionName: 'like', reactionId: added.json().addedId })]);

    const removed = await ann.as('DELETE', `/client/v1/messages/${messageId}/reactions/like`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ status: 'success', removedId: added.json().addedId, reactions: {}, reactionsCount: 0 });
    const missing = await ann.as('DELETE', `/client/v1/messages/${messageId}/reactions/like`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 400400 });
    expect(await messageOf(messageId)).toMatchObject({ reactions: {}, reactionsCount: 0 });
  });

  it('refuses reactions and flags to non-members, removed and banned users (403 / 400301), and touches nothing', async () => {
    const member = await userWithToken('member');
    const outsider = await userWithToken('outsider');
    const leaver = await userWithToken('leaver');
    const banned = await userWithToken('banned');
    const channelId = await channelWith([member.userId, leaver.userId, banned.userId]);
    const messageId = await adminMessage(channelId);
    expect((await member.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
    expect((await leaver.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
    expect((await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [leaver.userId] })).statusCode).toBe(200);
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [banned.userId] })).statusCode).toBe(200);

    for (const user of [outsider, leaver, banned]) {
      for (const [method, url, body] of [
        ['POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'love' }],
        ['DELETE', `/client/v1/messages/${messageId}/reactions/like`, undefined],
        ['POST', `/client/v1/messages/${messageId}/flag`, undefined],
      ] as const) {
        const response = await user.as(method, url, body);
        expect({ user: user.userId, url, status: response.statusCode, code: response.json().code }).toEqual({
          user: user.userId,
          url,
          status: 403,
          code: 400301,
        });
      }
    }
    // The removed member's earlier reaction stays; nothing of the refused calls was written.
    expect(await messageOf(messageId)).toMatchObject({ reactions: { like: 2 }, reactionsCount: 2, flagCount: 0 });
  });

  it('answers 404 for an unknown or deleted message, 401 without a token, 422 for a bad reaction name', async () => {
    const bea = await userWithToken('bea');
    const channelId = await channelWith([bea.userId]);
    const messageId = await adminMessage(channelId);
    expect((await bea.as('POST', '/client/v1/messages/ffffffffffffffffffffffff/reactions', { reactionName: 'like' })).statusCode).toBe(404);
    expect((await bea.as('POST', '/client/v1/messages/ffffffffffffffffffffffff/flag')).statusCode).toBe(404);
    const noToken = await t.app.inject({ method: 'POST', url: `/client/v1/messages/${messageId}/flag` });
    expect(noToken.statusCode).toBe(401);
    const adminToken = await admin.call('POST', `/client/v1/messages/${messageId}/flag`);
    expect(adminToken.statusCode).toBe(403);
    expect((await bea.as('POST', `/client/v1/messages/${messageId}/reactions`, {})).statusCode).toBe(422);
    expect((await bea.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'a b' })).statusCode).toBe(422);

    expect((await bea.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
    expect((await admin.call('DELETE', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
    for (const response of [
      await bea.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'love' }),
      await bea.as('DELETE', `/client/v1/messages/${messageId}/reactions/like`),
      await bea.as('POST', `/client/v1/messages/${messageId}/flag`),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 400400, message: 'Message not found.' });
    }
  });

  it('counts one flag per flagger, concurrently too, and refuses flagging one own message', async () => {
    const author = await userWithToken('author');
    const flaggers = await Promise.all(Array.from({ length: 12 }, () => userWithToken('flagger')));
    const channelId = await channelWith([author.userId, ...flaggers.map((user) => user.userId)]);
    const posted = await author.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: 'my words' } });
    expect(posted.statusCode, posted.body).toBe(200);
    const messageId = posted.json().data.messages[0].messageId as string;

    const own = await author.as('POST', `/client/v1/messages/${messageId}/flag`);
    expect(own.statusCode).toBe(400);
    expect(own.json()).toMatchObject({ code: 400000, message: 'You cannot flag your own message.' });

    const first = await flaggers[0]?.as('POST', `/client/v1/messages/${messageId}/flag`);
    expect(first?.json()).toEqual({ status: 'success', flagged: true, flagCount: 1 });
    const repeat = await flaggers[0]?.as('POST', `/client/v1/messages/${messageId}/flag`);
    expect(repeat?.json()).toEqual({ status: 'success', flagged: false, flagCount: 1 });

    // Every flagger twice at once: each counts once.
    const racing = await Promise.all(
      flaggers.flatMap((user) => [user.as('POST', `/client/v1/messages/${messageId}/flag`), user.as('POST', `/client/v1/messages/${messageId}/flag`)]),
    );
    expect(racing.every((response) => response.statusCode === 200)).toBe(true);
    expect(racing.filter((response) => response.json().flagged === true)).toHaveLength(11);
    expect((await messageOf(messageId)).flagCount).toBe(12);
    // A flag on a message is not a flag on its author.
    expect((await admin.call('GET', `/api/v2/users?filter=flagged&search=${author.userId}`)).json().users).toEqual([]);
  });

  it("streams reaction.added and reaction.removed to the channel's members", async () => {
    const cat = await userWithToken('cat');
    const dan = await userWithToken('dan');
    const stranger = await userWithToken('stranger');
    const messageId = await adminMessage(await channelWith([cat.userId, dan.userId]));
    const frames: Frame[] = [];
    const strangerFrames: Frame[] = [];
    const open = (token: string, into: Frame[]) =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(`${base}/client/v1/stream?token=${token}`);
        socket.on('message', (raw) => into.push(JSON.parse(raw.toString()) as Frame));
        socket.on('open', () => resolve(socket));
        socket.on('error', reject);
      });
    const sockets = [await open(dan.token, frames), await open(stranger.token, strangerFrames)];
    try {
      expect((await cat.as('POST', `/client/v1/messages/${messageId}/reactions`, { reactionName: 'like' })).statusCode).toBe(200);
      expect((await cat.as('DELETE', `/client/v1/messages/${messageId}/reactions/like`)).statusCode).toBe(200);
      const mine = () => frames.filter((frame) => frame.type.startsWith('reaction.') && frame.data.reaction?.referenceId === messageId);
      for (let waited = 0; mine().length < 2 && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(mine().map((frame) => [frame.type, frame.data.reaction?.userId, frame.data.reaction?.reactionName, frame.data.message?.reactionsCount])).toEqual([
        ['reaction.added', cat.userId, 'like', 1],
        ['reaction.removed', cat.userId, 'like', 0],
      ]);
      expect(strangerFrames.filter((frame) => frame.type.startsWith('reaction.'))).toEqual([]);
    } finally {
      for (const socket of sockets) socket.close();
    }
  });
});
