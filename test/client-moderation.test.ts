import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../src/modules/tokens/tokens.service.js';
import { adminClient } from './helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from './helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe.each(testDatabases)('client API moderation on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string, roles: string[] = []) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { roles });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, as };
  }

  const actions: { permission: string; call: (channelId: string, target: string) => [Method, string, Record<string, unknown> | undefined] }[] = [
    { permission: 'EDIT_CHANNEL', call: (c) => ['PUT', `/client/v1/channels/${c}`, { displayName: 'renamed' }] },
    { permission: 'ADD_CHANNEL_USER', call: (c, u) => ['POST', `/client/v1/channels/${c}/users`, { userIds: [u] }] },
    { permission: 'REMOVE_CHANNEL_USER', call: (c, u) => ['DELETE', `/client/v1/channels/${c}/users`, { userIds: [u] }] },
    { permission: 'BAN_USER_FROM_CHANNEL', call: (c, u) => ['POST', `/client/v1/channels/${c}/users/ban`, { userIds: [u] }] },
    { permission: 'MUTE_CHANNEL', call: (c) => ['PUT', `/client/v1/channels/${c}/mute`, { mutePeriod: 1000 }] },
    { permission: 'MUTE_USER_INSIDE_CHANNEL', call: (c, u) => ['PUT', `/client/v1/channels/${c}/users/mute`, { mutePeriod: 1000, userIds: [u] }] },
    { permission: 'CLOSE_CHANNEL', call: (c) => ['POST', `/client/v1/channels/${c}/close`, undefined] },
    { permission: 'BAN_USER', call: (_c, u) => ['POST', `/client/v1/users/${u}/ban`, undefined] },
  ];

  it.each(actions)('$permission: refused to a plain member, allowed to a moderator with the permission', async ({ permission, call }) => {
    const role = t.uniqueId(`role-${permission.toLowerCase()}`);
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: [permission] });
    const member = await userWithToken('member');
    const moderator = await userWithToken('mod', [role]);
    const target = await userWithToken('target');
    const channelId = t.uniqueId('modch');
    await admin.createChannel(channelId, { userIds: [member.userId, moderator.userId, target.userId] });

    const [method, url, body] = call(channelId, target.userId);
    const refused = await member.as(method, url, body);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 400301, message: `Permission ${permission} is required.` });
    const allowed = await moderator.as(method, url, body);
    expect(allowed.statusCode, allowed.body).toBe(200);
  });

  it('a role with another permission does not grant this one', async () => {
    const role = t.uniqueId('muter');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['MUTE_CHANNEL'] });
    const moderator = await userWithToken('mod', [role]);
    const channelId = t.uniqueId('modch');
    await admin.createChannel(channelId, { userIds: [moderator.userId] });
    expect((await moderator.as('POST', `/client/v1/channels/${channelId}/close`)).statusCode).toBe(403);
  });

  it('flags a user once per flagger, and not oneself', async () => {
    const target = await userWithToken('flagtarget');
    const a = await userWithToken('flagger');
    const b = await userWithToken('flagger');
    expect((await a.as('POST', `/client/v1/users/${target.userId}/flag`)).json()).toMatchObject({ flagged: true });
    expect((await a.as('POST', `/client/v1/users/${target.userId}/flag`)).json()).toMatchObject({ flagged: false });
    expect((await b.as('POST', `/client/v1/users/${target.userId}/flag`)).statusCode).toBe(200);
    expect((await target.as('POST', `/client/v1/users/${target.userId}/flag`)).statusCode).toBe(400);
    expect((await a.as('POST', '/client/v1/users/nobody-x/flag')).statusCode).toBe(404);
    const flagged = (await admin.call('GET', `/api/v2/users?filter=flagged&search=${target.userId}`)).json();
    expect(flagged.users[0].info).toMatchObject({ userId: target.userId, flagCount: 2 });
  });
});
