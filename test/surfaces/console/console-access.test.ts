import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createNetworkAdmins } from '../../../src/modules/identity/network-admins.js';
import { openStorage } from '../../../src/storage/database.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from './console-signin.js';

const ALL_PERMISSIONS = [
  'MUTE_CHANNEL',
  'CLOSE_CHANNEL',
  'EDIT_CHANNEL',
  'ADD_CHANNEL_USER',
  'REMOVE_CHANNEL_USER',
  'BAN_USER_FROM_CHANNEL',
  'MUTE_USER_INSIDE_CHANNEL',
  'DELETE_MESSAGE',
  'BAN_USER',
  'EDIT_USER',
];

/**
 * The admin API for people signed in to the console: network admins may do everything, moderators
 * what their global roles grant (route by route), everyone else stays out as before.
 */
describe.each(testDatabases)('console sign-in on the admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  const password = 'console password 1';

  /** A request to the admin API with a console token. */
  const as = (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body } : {}) });

  const consoleToken = async (username: string): Promise<string> => {
    const signedIn = await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) });
    expect(signedIn.status, signedIn.body).toBe(200);
    return signedIn.accessToken as string;
  };

  const networkAdmin = async (): Promise<string> => {
    const username = t.uniqueId('root');
    await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username, password, displayName: 'Root Admin' });
    return username;
  };

  /** A person whose global role grants exactly `permissions` (none: a plain user). */
  const person = async (permissions: string[]): Promise<string> => {
    const userId = t.uniqueId('person');
    const roles: string[] = [];
    if (permissions.length > 0) {
      const role = t.uniqueId('role');
      expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions })).statusCode).toBe(200);
      roles.push(role);
    }
    await admin.createUser(userId, { username: userId, password, displayName: `Person ${userId}`, roles });
    return userId;
  };

  const expectRefused = (response: LightMyRequestResponse, status: number, code: number): void => {
    expect({ status: response.statusCode, code: response.json().code }, response.body).toEqual({ status, code });
  };

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it("registers the console's public client for the public URL, and will not let it be deleted", async () => {
    const client = await admin.call('GET', '/api/v2/oauth/clients/parley-console');
    expect(client.statusCode).toBe(200);
    expect(client.json()).toMatchObject({
      clientId: 'parley-console',
      redirectUris: [`${t.config.publicUrl}/console/callback`],
      postLogoutRedirectUris: [`${t.config.publicUrl}/console/`],
    });
    const deleted = await admin.call('DELETE', '/api/v2/oauth/clients/parley-console');
    expectRefused(deleted, 409, 400900);
    expect(deleted.json().message).toContain('cannot be deleted');
    expect((await admin.call('GET', '/api/v2/oauth/clients/parley-console')).statusCode).toBe(200);
  });

  it('moves the console client along when the server starts with another PUBLIC_URL', async () => {
    /** Another server on the same database, started and stopped. */
    const startWith = async (publicUrl: string): Promise<void> => {
      const database = t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {};
      const config = loadConfig({ DATA_DIR: t.config.dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: publicUrl, ...database });
      const other = await buildApp(config, { storage: openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 }) });
      await other.app.close();
    };
    const consoleClients = async () =>
      (await admin.call('GET', '/api/v2/oauth/clients')).json().clients.filter((one: { clientId: string }) => one.clientId === 'parley-console');

    await startWith('https://chat.example/parley');
    expect(await consoleClients()).toEqual([
      expect.objectContaining({
        redirectUris: ['https://chat.example/parley/console/callback'],
        postLogoutRedirectUris: ['https://chat.example/parley/console/'],
      }),
    ]);
    await startWith(t.config.publicUrl);
    expect(await consoleClients()).toEqual([expect.objectContaining({ redirectUris: [`${t.config.publicUrl}/console/callback`] })]);
  });

  it('lets a network admin in with every right: /me says so, and any route answers', async () => {
    const token = await consoleToken(await networkAdmin());
    const me = await as(token, 'GET', '/api/v2/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({
      kind: 'user',
      userId: expect.stringMatching(/^root-/),
      displayName: 'Root Admin',
      networkAdmin: true,
      permissions: ALL_PERMISSIONS,
    });
    expect((await as(token, 'GET', '/api/v2/users')).statusCode).toBe(200);
    expect((await as(token, 'GET', '/api/v2/admin-tokens')).statusCode).toBe(200);
    const rule = await as(token, 'POST', '/api/v2/blacklist/records', { regexs: [t.uniqueId('badword')] });
    expect(rule.statusCode, rule.body).toBe(200);
  });

  it('answers /me for an admin token with every permission and no user', async () => {
    const me = await admin.call('GET', '/api/v2/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual({ kind: 'adminToken', userId: null, displayName: null, networkAdmin: true, permissions: ALL_PERMISSIONS });
  });

  it('lets a moderator reach only what their permissions grant', async () => {
    const userId = await person(['DELETE_MESSAGE']);
    const token = await consoleToken(userId);
    const me = await as(token, 'GET', '/api/v2/me');
    expect(me.json()).toEqual({ kind: 'user', userId, displayName: `Person ${userId}`, networkAdmin: false, permissions: ['DELETE_MESSAGE'] });

    const users = await as(token, 'GET', '/api/v2/users');
    expectRefused(users, 403, 400301);
    expect(users.json().message).toBe('Listing users needs one of the permissions EDIT_USER, BAN_USER through a global role, or a network admin.');
    const rule = await as(token, 'POST', '/api/v2/blacklist/records', { regexs: ['nope'] });
    expectRefused(rule, 403, 400301);
    expect(rule.json().message).toBe('Only a network admin can use this route (moderation rules).');
    expectRefused(await as(token, 'GET', '/api/v2/audit'), 403, 400301);

    // What DELETE_MESSAGE grants: reading channels and messages, deleting a message.
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId);
    const sent = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'hello' } });
    const messageId = sent.json().data.messages[0].messageId as string;
    expect((await as(token, 'POST', '/api/v2/channels', {})).statusCode).toBe(200);
    expect((await as(token, 'GET', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
    expect((await as(token, 'DELETE', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
    // But not changing the channel.
    expectRefused(await as(token, 'POST', `/api/v2/channel/${channelId}/close`), 403, 400301);
  });

  it('grants channel writes to EDIT_CHANNEL or the specific permission', async () => {
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId);
    const member = await person([]);
    const adder = await consoleToken(await person(['ADD_CHANNEL_USER']));
    expect((await as(adder, 'POST', `/api/v2/channel/${channelId}/users`, { userIds: [member] })).statusCode).toBe(200);
    expectRefused(await as(adder, 'DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [member] }), 403, 400301);
    const editor = await consoleToken(await person(['EDIT_CHANNEL']));
    expect((await as(editor, 'DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [member] })).statusCode).toBe(200);
    expect((await as(editor, 'POST', `/api/v2/channel/${channelId}/close`)).statusCode).toBe(200);
  });

  it("keeps moderators with EDIT_USER or BAN_USER off roles, network admins' accounts and other people's sign-in", async () => {
    const root = await networkAdmin();
    const editor = await person(['EDIT_USER']);
    const token = await consoleToken(editor);
    const target = await person([]);
    expect((await as(token, 'GET', '/api/v2/users')).statusCode).toBe(200);
    expect((await as(token, 'PUT', '/api/v2/users', { userId: target, displayName: 'Renamed' })).statusCode).toBe(200);
    const created = await as(token, 'PUT', '/api/v2/users', { userId: t.uniqueId('fresh'), username: t.uniqueId('fresh-login'), password });
    expect(created.statusCode, created.body).toBe(200);

    const roles = await as(token, 'PUT', '/api/v2/users', { userId: editor, roles: ['everything'] });
    expectRefused(roles, 403, 400301);
    expect(roles.json().message).toContain('global roles');
    expectRefused(await as(token, 'PUT', '/api/v2/users', { userId: target, password: 'taken over 123' }), 403, 400301);
    expectRefused(await as(token, 'PUT', '/api/v2/users', { userId: root, displayName: 'Mine now' }), 403, 400301);
    expect((await as(token, 'PUT', '/api/v2/users', { userId: editor, password: 'my own new one' })).statusCode).toBe(200);

    const banner = await consoleToken(await person(['BAN_USER']));
    expectRefused(await as(banner, 'POST', '/api/v2/users/ban', { userId: root }), 403, 400301);
    expect((await as(banner, 'POST', '/api/v2/users/ban', { userId: target })).statusCode).toBe(200);
    expectRefused(await as(banner, 'PUT', '/api/v2/users', { userId: target, displayName: 'x' }), 403, 400301);
    expectRefused(await as(banner, 'POST', `/api/v2/users/${target}/tokens`, {}), 403, 400301);
  });

  it("refuses a plain user's console token, as any user token is refused", async () => {
    const token = await consoleToken(await person([]));
    const response = await as(token, 'GET', '/api/v2/me');
    expectRefused(response, 403, 400300);
    expect(response.json().message).toContain('network admins');
  });

  it("refuses a network admin's token from another OAuth client, with the wording that names the console", async () => {
    const username = await networkAdmin();
    const other = await admin.call('POST', '/api/v2/oauth/clients', { name: 'Other app', redirectUris: ['https://other.example/cb'], public: true });
    expect(other.statusCode).toBe(200);
    const signedIn = await signInWithPkce(t.app, { username, password, redirectUri: 'https://other.example/cb', clientId: other.json().clientId });
    expect(signedIn.status).toBe(200);
    const response = await as(signedIn.accessToken as string, 'GET', '/api/v2/users');
    expectRefused(response, 403, 400300);
    expect(response.json().message).toBe(
      'A user access token cannot be used on the admin API: use an admin token (PARLEY_ADMIN_TOKEN or `parley admin-token create`) or the token of a sign-in to the console at /console, sent as Authorization: Bearer <token>.',
    );
  });

  it("refuses a banned network admin's console token, and their sign-in", async () => {
    const username = await networkAdmin();
    const token = await consoleToken(username);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: username })).statusCode).toBe(200);
    expectRefused(await as(token, 'GET', '/api/v2/users'), 403, 400312);
    const again = await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) }).catch((error: Error) => error);
    expect(again).toBeInstanceOf(Error);
  });
});
