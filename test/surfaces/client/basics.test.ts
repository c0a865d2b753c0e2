import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('client API basics on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} display` });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, token, as };
  }

  it("answers the caller's profile, and refuses missing, admin and banned callers", async () => {
    const olga = await userWithToken('olga');
    const me = await olga.as('GET', '/client/v1/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ userId: olga.userId, displayName: 'olga display' });

    expect((await t.app.inject({ method: 'GET', url: '/client/v1/me' })).statusCode).toBe(401);
    const asAdmin = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(asAdmin.statusCode).toBe(403);
    expect(asAdmin.json().code).toBe(400300);

    await admin.call('POST', '/api/v2/users/ban', { userId: olga.userId });
    const banned = await olga.as('GET', '/client/v1/me');
    expect(banned.statusCode).toBe(403);
    expect(banned.json()).toMatchObject({ code: 400312, message: 'User is banned from the system.' });
    await admin.call('POST', '/api/v2/users/unban', { userId: olga.userId });
    // The unban restores no credential: the token from before the ban stays revoked; a new one works.
    expect((await olga.as('GET', '/client/v1/me')).statusCode).toBe(401);
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: olga.userId, expiresInMs: 3_600_000 });
    expect((await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
  });

  it("lists the caller's channels only, and moves the read marker forward only", async () => {
    const pia = await userWithToken('pia');
    const mine = t.uniqueId('pia-ch');
    await admin.createChannel(mine, { userIds: [pia.userId] });
    const notPia = t.uniqueId('not-pia');
    await admin.createChannel(notPia);
    const list = (await pia.as('GET', '/client/v1/channels')).json();
    expect(list.channels.map((c: { channel: { channelId: string } }) => c.channel.channelId)).toEqual([mine]);
    expect(list.channels[0]).toMatchObject({ unreadCount: 0, channelUser: { userId: pia.userId, readToSegment: 0 } });

    // Pretend three messages arrived: the unread count is the distance from the marker to the end.
    await t.storage.db.updateTable('channels').set({ last_segment: 3, message_count: 3 }).where('id', '=', mine).execute();
    expect((await pia.as('GET', '/client/v1/channels')).json().channels[0].unreadCount).toBe(3);
    const read = await pia.as('POST', `/client/v1/channels/${mine}/read`, { segment: 2 });
    expect(read.json()).toMatchObject({ status: 'success', readToSegment: 2 });
    expect((await pia.as('GET', '/client/v1/channels')).json().channels[0].unreadCount).toBe(1);
    const backwards = await pia.as('POST', `/client/v1/channels/${mine}/read`, { segment: 1 });
    expect(backwards.json().readToSegment).toBe(2);

    const notMine = await pia.as('POST', `/client/v1/channels/${notPia}/read`, { segment: 1 });
    expect({ status: notMine.statusCode, code: notMine.json().code }).toEqual({ status: 403, code: 400301 });
    // As for reading messages: a channel that does not exist is 404, a ban from the channel 400304.
    const missing = await pia.as('POST', `/client/v1/channels/${t.uniqueId('elsewhere')}/read`, { segment: 1 });
    expect({ status: missing.statusCode, code: missing.json().code }).toEqual({ status: 404, code: 400400 });
    const banning = t.uniqueId('bans-pia');
    await admin.createChannel(banning, { userIds: [pia.userId] });
    await admin.call('POST', `/api/v2/channel/${banning}/users/ban`, { userIds: [pia.userId] });
    const banned = await pia.as('POST', `/client/v1/channels/${banning}/read`, { segment: 1 });
    expect({ status: banned.statusCode, code: banned.json().code }).toEqual({ status: 403, code: 400304 });
    // Past the 32-bit segment column: a parameters error naming the field, not a database error.
    const huge = await pia.as('POST', `/client/v1/channels/${mine}/read`, { segment: 3_000_000_000 });
    expect(huge.statusCode).toBe(422);
    expect(huge.json().data.fields[0].field).toBe('body.segment');
    expect((await pia.as('GET', '/client/v1/channels')).json().channels[0].unreadCount).toBe(1);

    // A marker ahead of the channel stops at its last message: the next message is still unread.
    const ahead = await pia.as('POST', `/client/v1/channels/${mine}/read`, { segment: 1000 });
    expect(ahead.json().readToSegment).toBe(3);
    await admin.call('POST', '/api/v2/message', { channelId: mine, type: 'text', data: { text: 'the fourth' } });
    const listed = (await pia.as('GET', '/client/v1/channels')).json().channels.find((c: { channel: { channelId: string } }) => c.channel.channelId === mine);
    expect(listed.unreadCount).toBe(1);
  });
});
