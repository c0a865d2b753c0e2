import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { credentialChecks, type SignedInPerson, sessionCookieValue, signedInPerson } from '../../helpers/credentials.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** The secrets a list must never show: each value, and the hash it is stored under. */
function secretsOf(person: SignedInPerson, more: string[] = []): string[] {
  const values = [person.accessToken, person.refreshToken, person.mintedToken, sessionCookieValue(person.cookie), ...more];
  return values.flatMap((value) => [value, hashToken(value)]);
}

describe.each(testDatabases)('revocation through the admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let check: ReturnType<typeof credentialChecks>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    check = credentialChecks(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Everything the person held fails: the cookie, the refresh token, the sign-in and minted access tokens. */
  async function expectAllRevoked(person: SignedInPerson): Promise<void> {
    expect(await check.cookieSignsIn(person)).toBe(false);
    expect(await check.refresh(person)).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await check.meStatus(person.accessToken)).toBe(401);
    expect(await check.meStatus(person.mintedToken)).toBe(401);
    const userinfo = await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${person.accessToken}` } });
    expect(userinfo.statusCode).toBe(401);
  }

  it('a password change revokes the old cookie, refresh token and access tokens (minted too); other changes revoke nothing', async () => {
    const person = await signedInPerson(t);
    const bystander = await signedInPerson(t);
    expect(await check.cookieSignsIn(person)).toBe(true);
    expect(await check.meStatus(person.accessToken)).toBe(200);
    expect(await check.meStatus(person.mintedToken)).toBe(200);

    expect((await admin.call('PUT', '/api/v2/users', { userId: person.userId, displayName: 'Renamed' })).statusCode).toBe(200);
    expect(await check.meStatus(person.accessToken)).toBe(200);
    expect(await check.cookieSignsIn(person)).toBe(true);

    const changed = await admin.call('PUT', '/api/v2/users', { userId: person.userId, password: 'a brand new password' });
    expect(changed.statusCode, changed.body).toBe(200);
    await expectAllRevoked(person);

    // The new password signs in; the old one does not; nobody else was signed out.
    const s = signInClient(t);
    expect((await s.submitLogin({ username: person.username, password: person.password })).response.statusCode).toBe(401);
    expect((await s.submitLogin({ username: person.username, password: 'a brand new password' })).response.statusCode).toBe(303);
    expect(await check.meStatus(bystander.accessToken)).toBe(200);
    expect(await check.cookieSignsIn(bystander)).toBe(true);
    expect((await check.refresh(bystander)).status).toBe(200);
  });

  it('a global ban revokes everything, and an unban brings none of it back', async () => {
    const person = await signedInPerson(t);
    const bot = await createBot(t, 'Banned bot');
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: person.userId })).statusCode).toBe(200);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: bot.userId })).statusCode).toBe(200);
    // While banned, the access tokens say so (403 / 400312); the session and the grant are gone already.
    const banned = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${person.accessToken}` } });
    expect([banned.statusCode, banned.json().code]).toEqual([403, 400312]);
    expect((await admin.call('GET', `/api/v2/users/${person.userId}/tokens`)).json().grants).toEqual([]);
    expect((await admin.call('GET', `/api/v2/users/${person.userId}/sessions`)).json().sessions).toEqual([]);
    expect((await admin.call('POST', '/api/v2/users/unban', { userId: person.userId })).statusCode).toBe(200);
    expect((await admin.call('POST', '/api/v2/users/unban', { userId: bot.userId })).statusCode).toBe(200);

    await expectAllRevoked(person);
    const botSend = await bot.json(t.app, '/direct/message', { uid: person.userId, message: { type: 'text', data: 'still here?' } });
    expect(botSend.statusCode).toBe(401);
    // Signing in again works once unbanned.
    expect((await signInClient(t).submitLogin({ username: person.username, password: person.password })).response.statusCode).toBe(303);
  });

  it('signs a user out everywhere: every session, grant and access token, answering what was live', async () => {
    const person = await signedInPerson(t);
    const secondBrowser = await signInClient(t).login(person.username, person.password);
    const response = await admin.call('POST', `/api/v2/users/${person.userId}/signout`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ status: 'success', revoked: { sessions: 2, accessTokens: 2, grants: 1 } });
    await expectAllRevoked(person);
    expect(await check.cookieSignsIn({ ...person, cookie: secondBrowser })).toBe(false);
    const again = await admin.call('POST', `/api/v2/users/${person.userId}/signout`);
    expect(again.json()).toEqual({ status: 'success', revoked: { sessions: 0, accessTokens: 0, grants: 0 } });
    expect((await admin.call('POST', '/api/v2/users/nobody-here/signout')).statusCode).toBe(404);
  });

  it('lists sessions, tokens and grants without their secrets, and revokes them one at a time', async () => {
    const person = await signedInPerson(t);
    const secondCookie = await signInClient(t).login(person.username, person.password);
    const second = { ...person, cookie: secondCookie };

    const sessions = await admin.call('GET', `/api/v2/users/${person.userId}/sessions`);
    expect(sessions.statusCode, sessions.body).toBe(200);
    const listed = (sessions.json() as { sessions: Array<{ sessionId: string; createdAt: string; lastSeenAt: string | null; expiresAt: string }> }).sessions;
    expect(listed).toHaveLength(2);
    for (const secret of secretsOf(person, [secondCookie])) expect(sessions.body).not.toContain(secret);

    // Newest first: the second browser's session; revoking it leaves the first signed in.
    const revoked = await admin.call('DELETE', `/api/v2/users/${person.userId}/sessions/${listed[0]?.sessionId}`);
    expect(revoked.json()).toEqual({ status: 'success' });
    expect(await check.cookieSignsIn(second)).toBe(false);
    expect(await check.cookieSignsIn(person)).toBe(true);
    expect((await admin.call('DELETE', `/api/v2/users/${person.userId}/sessions/${listed[0]?.sessionId}`)).statusCode).toBe(404);

    const tokens = await admin.call('GET', `/api/v2/users/${person.userId}/tokens`);
    expect(tokens.statusCode, tokens.body).toBe(200);
    for (const secret of secretsOf(person)) expect(tokens.body).not.toContain(secret);
    const body = tokens.json() as {
      accessTokens: Array<{ tokenId: string; source: string; grantId: string | null; clientId: string | null }>;
      grants: Array<{ grantId: string; clientId: string }>;
    };
    const minted = body.accessTokens.find((token) => token.source === 'minted');
    const signIn = body.accessTokens.find((token) => token.source === 'signIn');
    expect(body.grants).toHaveLength(1);
    expect(signIn?.grantId).toBe(body.grants[0]?.grantId);
    expect(signIn?.clientId).toBe(person.client.clientId);

    // One minted token: only it stops working.
    const revokedToken = await admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${minted?.tokenId}`);
    expect(revokedToken.json()).toEqual({ status: 'success', revoked: 'accessToken' });
    expect(await check.meStatus(person.mintedToken)).toBe(401);
    expect(await check.meStatus(person.accessToken)).toBe(200);

    // The grant: its refresh token and the access token issued from it.
    const revokedGrant = await admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${body.grants[0]?.grantId}`);
    expect(revokedGrant.json()).toEqual({ status: 'success', revoked: 'grant' });
    expect(await check.meStatus(person.accessToken)).toBe(401);
    expect(await check.refresh(person)).toEqual({ status: 400, error: 'invalid_grant' });
    expect((await admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${body.grants[0]?.grantId}`)).statusCode).toBe(404);
    const after = (await admin.call('GET', `/api/v2/users/${person.userId}/tokens`)).json();
    expect(after).toEqual({ accessTokens: [], grants: [] });
  });

  it('answers 404 for an unknown user, and for the sessions and tokens of someone else', async () => {
    const person = await signedInPerson(t);
    const other = await signedInPerson(t);
    for (const [method, url] of [
      ['GET', '/api/v2/users/nobody-here/sessions'],
      ['GET', '/api/v2/users/nobody-here/tokens'],
      ['DELETE', '/api/v2/users/nobody-here/sessions/abc'],
      ['DELETE', '/api/v2/users/nobody-here/tokens/abc'],
    ] as const) {
      const response = await admin.call(method, url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ status: 'error', code: 400400, message: 'User not found.' });
    }
    const theirs = (await admin.call('GET', `/api/v2/users/${other.userId}/tokens`)).json() as { accessTokens: Array<{ tokenId: string }> };
    const theirSessions = (await admin.call('GET', `/api/v2/users/${other.userId}/sessions`)).json() as { sessions: Array<{ sessionId: string }> };
    expect((await admin.call('DELETE', `/api/v2/users/${person.userId}/tokens/${theirs.accessTokens[0]?.tokenId}`)).statusCode).toBe(404);
    expect((await admin.call('DELETE', `/api/v2/users/${person.userId}/sessions/${theirSessions.sessions[0]?.sessionId}`)).statusCode).toBe(404);
    expect(await check.meStatus(other.accessToken)).toBe(200);
    expect(await check.cookieSignsIn(other)).toBe(true);
  });

  it('creates, lists and revokes admin tokens; a revoked one fails at once; the environment token stays', async () => {
    const name = t.uniqueId('ops');
    const created = await admin.call('POST', '/api/v2/admin-tokens', { name });
    expect(created.statusCode, created.body).toBe(200);
    const made = created.json() as { tokenId: string; token: string; name: string; userId: string; environment: boolean; revokedAt: null };
    expect(made).toMatchObject({ name, userId: `admin-${name}`, environment: false, revokedAt: null });
    const asNew = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${made.token}` } });
    expect((await asNew('/api/v2/users')).statusCode).toBe(200);

    expect((await admin.call('POST', '/api/v2/admin-tokens', { name })).statusCode).toBe(409);
    const reserved = await admin.call('POST', '/api/v2/admin-tokens', { name: 'PARLEY_ADMIN_TOKEN' });
    expect(reserved.statusCode).toBe(422);
    expect(reserved.json()).toMatchObject({ status: 'error', code: 500000 });

    // The list: no token, no hash; the new one marked as used, the environment's marked as such.
    let list = await admin.call('GET', '/api/v2/admin-tokens');
    for (let tries = 0; tries < 50 && !list.body.includes(`"lastUsedAt":"`); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      list = await admin.call('GET', '/api/v2/admin-tokens');
    }
    for (const secret of [made.token, hashToken(made.token), t.adminToken, hashToken(t.adminToken)]) expect(list.body).not.toContain(secret);
    const rows = (list.json() as { adminTokens: Array<Record<string, unknown>> }).adminTokens;
    const row = rows.find((token) => token.tokenId === made.tokenId);
    expect(row).toMatchObject({ name, environment: false, revokedAt: null });
    expect(typeof row?.lastUsedAt).toBe('string');
    expect(Object.keys(row ?? {})).not.toContain('token');
    const environment = rows.find((token) => token.environment === true);
    expect(environment?.name).toBe('PARLEY_ADMIN_TOKEN');

    // Revoked: refused at once, whatever the cache held a moment ago.
    const revoked = await admin.call('DELETE', `/api/v2/admin-tokens/${made.tokenId}`);
    expect(revoked.json()).toEqual({ status: 'success' });
    const refused = await asNew('/api/v2/users');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ status: 'error', code: 400100 });
    expect((await admin.call('DELETE', `/api/v2/admin-tokens/${made.tokenId}`)).statusCode).toBe(404);
    expect(
      (await admin.call('GET', '/api/v2/admin-tokens')).json().adminTokens.find((token: { tokenId: string }) => token.tokenId === made.tokenId),
    ).toMatchObject({ revokedAt: expect.any(String) });

    // The environment's token is not revocable here, and keeps working.
    const refusedEnv = await admin.call('DELETE', `/api/v2/admin-tokens/${environment?.tokenId}`);
    expect(refusedEnv.statusCode).toBe(403);
    expect((await admin.call('GET', '/api/v2/admin-tokens')).statusCode).toBe(200);
    // An admin token that expires.
    const expiring = (await admin.call('POST', '/api/v2/admin-tokens', { name: t.uniqueId('temp'), expiresIn: 3600 })).json() as { expiresAt: string };
    expect(typeof expiring.expiresAt).toBe('string');
  });
});
