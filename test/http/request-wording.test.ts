import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * What a developer reads in a refusal: the field and what is wrong with it in plain words, which token
 * the surface takes and how to send it, and where the stream takes its token.
 */
describe.each(testDatabases)('the wording of refusals, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let tokenOf: (kind: 'user' | 'bot') => Promise<string>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
    const userId = t.uniqueId('wording');
    await admin.createUser(userId);
    const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
    tokenOf = async (kind) => (await tokens.issue({ kind, userId, expiresInMs: 600_000 })).token;
  });
  afterAll(async () => {
    await t.close();
  });

  it('a missing field: "userId is required.", the field in data.fields and data.detail', async () => {
    const response = await admin.call('PUT', '/api/v2/users', { displayName: 'No id' });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      status: 'error',
      code: 500000,
      message: 'userId is required.',
      data: { detail: ['body.userId: is required'], fields: [{ field: 'body.userId', message: 'is required' }] },
    });
  });

  it('a wrong type, a bound, an unknown value and a nested field, in plain words', async () => {
    const notNumber = await admin.call('GET', '/api/v2/users?limit=many');
    expect({ status: notNumber.statusCode, message: notNumber.json().message, fields: notNumber.json().data.fields }).toEqual({
      status: 422,
      message: 'limit must be a whole number.',
      fields: [{ field: 'querystring.limit', message: 'must be a whole number' }],
    });
    const tooSmall = await admin.call('GET', '/api/v2/users?limit=0');
    expect(tooSmall.json().message).toBe('limit must be at least 1.');
    const wrongType = await admin.call('PUT', '/api/v2/users', { userId: 5 });
    expect(wrongType.json().message).toBe('userId must be a string.');
    const unknownValue = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('w'), type: 'private' });
    expect({ status: unknownValue.statusCode, message: unknownValue.json().message }).toEqual({ status: 400, message: 'type must be one of standard.' });
    const nested = await admin.call('POST', '/api/v2/channels', { options: { limit: 'ten' } });
    expect(nested.json().message).toBe('options.limit must be a whole number.');
    expect(nested.json().data.fields[0].field).toBe('body.options.limit');
    const item = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('w'), type: 'standard', userIds: ['ok', 7] });
    expect(item.json().data.fields[0]).toEqual({ field: 'body.userIds[1]', message: 'must be a string' });
  });

  it('a token of the wrong kind names the surface and the token it takes', async () => {
    const onClient = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${t.adminToken}` } });
    expect({ status: onClient.statusCode, code: onClient.json().code, message: onClient.json().message }).toEqual({
      status: 403,
      code: 400300,
      message:
        'An admin token cannot be used on the client API, the stream and the notification tray: use a user access token, sent as Authorization: Bearer <token>.',
    });
    const userOnAdmin = await t.app.inject({ method: 'GET', url: '/api/v2/roles', headers: { authorization: `Bearer ${await tokenOf('user')}` } });
    expect(userOnAdmin.json().message).toBe(
      'A user access token cannot be used on the admin API: use an admin token (PARLEY_ADMIN_TOKEN or `parley admin-token create`) or the token of a sign-in to the console at /console, sent as Authorization: Bearer <token>.',
    );
    const userOnBot = await t.app.inject({
      method: 'POST',
      url: '/bot/v1/direct/message',
      headers: { authorization: `Bearer ${await tokenOf('user')}` },
      payload: { userId: 'x', data: { text: 'hi' } },
    });
    expect(userOnBot.json().message).toBe(
      'A user access token cannot be used on the bot API: use a bot token (the client_credentials grant at /oauth/token), sent as Authorization: Bearer <token>.',
    );
  });

  it('the stream says it takes the token in ?token=', async () => {
    const missing = await t.app.inject({ method: 'GET', url: '/client/v1/stream' });
    expect({ status: missing.statusCode, code: missing.json().code }).toEqual({ status: 401, code: 400100 });
    expect(missing.json().message).toBe(
      'Missing access token: connect to /client/v1/stream?token=<user access token> (or send Authorization: Bearer <token>).',
    );
    const empty = await t.app.inject({ method: 'GET', url: '/client/v1/stream?token=' });
    expect(empty.json().message).toBe(missing.json().message);
    const adminOnStream = await t.app.inject({ method: 'GET', url: `/client/v1/stream?token=${t.adminToken}` });
    expect({ status: adminOnStream.statusCode, message: adminOnStream.json().message }).toEqual({
      status: 403,
      message: 'An admin token cannot be used on the stream: use a user access token, sent as ?token=<token> or Authorization: Bearer <token>.',
    });
  });
});
