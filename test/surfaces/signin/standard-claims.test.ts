import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * OpenID Connect Core 5.3.2: a standard claim without a value is left out of userinfo and the ID
 * token, not sent as "". The original's own fields (firstname, lastname, email, avatar, position,
 * status, title...) keep their "" (docs/contract.md, Sign-in details), since its SDKs read them unconditionally.
 */
describe.each(testDatabases)('sign-in: empty standard claims are left out on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A person with a username and a password only: no names, no email, no avatar, no position. */
  async function tokensOfBarePerson(scope: string): Promise<{ access_token: string; id_token: string }> {
    const person = await s.createPerson({ firstname: undefined, lastname: undefined, email: undefined });
    const client = await s.createOAuthClient();
    const cookie = await s.login(person.username, person.password);
    const authorized = await s.authorize(
      s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope, state: 'st' }),
      cookie,
    );
    const code = s.redirectParams(authorized).get('code') as string;
    const response = await s.token(
      { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
      { id: client.clientId, secret: client.clientSecret as string },
    );
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  it('userinfo leaves out empty standard claims and keeps the original fields as ""', async () => {
    const { access_token: accessToken } = await tokensOfBarePerson('openid profile');
    const info = (await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).json();
    for (const claim of ['given_name', 'family_name', 'picture']) expect(info, claim).not.toHaveProperty(claim);
    // name falls back to the display name (the user id when none was given), so it has a value.
    expect(info.name).toBe(info._id);
    expect(typeof info.preferred_username).toBe('string');
    expect(info).toMatchObject({ firstname: '', lastname: '', email: '', avatar: '', position: '', status: '', title: '' });
    for (const value of Object.values(info)) expect(value).not.toBeNull();
  });

  it('the ID token carries no empty standard claim and keeps firstname, lastname and email', async () => {
    const profile = decodeJwt((await tokensOfBarePerson('openid profile')).id_token);
    const empty = Object.entries(profile).filter(([claim, value]) => value === '' && !['firstname', 'lastname', 'email'].includes(claim));
    expect(empty).toEqual([]);
    expect(profile.name).toBe(profile.sub);
    expect(profile.email).toBe('');
    const plain = decodeJwt((await tokensOfBarePerson('openid')).id_token);
    expect(plain).toMatchObject({ firstname: '', lastname: '', email: '' });
  });
});
