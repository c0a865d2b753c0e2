import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { makeJpeg, multipartBody } from '../helpers/media.js';
import { signInClient } from '../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * The strict checks refuse no more than they must: the sign-in NUL guard refuses only a real NUL
 * (typed `%00` in a password, `%2500` in a state or a redirect URI pass), and forms and multipart
 * still coerce their text where JSON bodies are typed strictly.
 */
describe.each(testDatabases)('inputs the strict checks still accept on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('the sign-in NUL guard: a password with "%00" typed literally, a state and an unencoded redirect_uri holding "%2500" pass', async () => {
    const person = await s.createPerson({ password: 'pass%00word-long-enough' });
    const registered = 'https://app.example/cb?x=%2500';
    const client = await s.createOAuthClient({ redirectUris: [registered] });
    const query = `response_type=code&client_id=${client.clientId}&redirect_uri=${registered}&scope=openid&state=a%2500b`;
    const { response } = await s.submitLogin({ username: person.username, password: 'pass%00word-long-enough', query });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
    const location = String(response.headers.location);
    expect(location.startsWith(`${registered}&code=`)).toBe(true);
    expect(new URL(location).searchParams.get('state')).toBe('a%00b');
    const token = await s.token(
      { grant_type: 'authorization_code', code: new URL(location).searchParams.get('code') as string, redirect_uri: registered },
      { id: client.clientId, secret: client.clientSecret as string },
    );
    expect(token.statusCode, token.body).toBe(200);
  });

  it('forms and multipart still coerce (booleans, numbers, one value as a list); JSON does not', async () => {
    const rule = await admin.form('POST', '/api/v2/blacklist/records', `regexs=zzreviewword&isMatchExactWord=true`);
    expect(rule.statusCode, rule.body).toBe(200);
    const gid = t.uniqueId('g');
    await admin.createChannel(gid);
    const mute = await admin.form('PUT', `/api/v2/channel/${gid}/mute`, 'mutePeriod=0');
    expect(mute.statusCode, mute.body).toBe(200);
    const body = multipartBody(
      [
        ['channelId', gid],
        ['fullImage', 'true'],
        ['tags', 'one'],
      ],
      [{ name: 'file', data: await makeJpeg(8, 8), fileName: 'a.jpg', contentType: 'image/jpeg' }],
    );
    const image = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/images',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(image.statusCode, image.body).toBe(200);
    const user = t.uniqueId('u');
    await admin.createUser(user);
    await admin.call('POST', `/api/v2/channel/${gid}/users`, { userIds: [user] });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: user, expiresInMs: 3_600_000 });
    const clientForm = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${gid}/messages`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'type=text&data[text]=hi&tags=solo',
    });
    expect(clientForm.statusCode, clientForm.body).toBe(200);
    const read = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${gid}/read`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'segment=1',
    });
    expect(read.statusCode, read.body).toBe(200);
    const strict = await admin.call('PUT', `/api/v2/channel/${gid}/mute`, { mutePeriod: '0' });
    expect(strict.statusCode).toBe(422);
  });
});
