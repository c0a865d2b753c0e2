import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../src/app.js';
import { ADMIN_TOKEN_CACHE_MS } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { credentialChecks, signedInPerson } from '../helpers/credentials.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ready = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
if (!ready) process.stdout.write('revocation scale-out tests skipped: they need TEST_DATABASE_URL and TEST_REDIS_URL.\n');

/**
 * Revocation across three instances on one PostgreSQL and one Redis: what a password change on
 * instance A revokes fails on A, B and C at once (nothing of it is cached); an admin token revoked, or
 * a bot's client deleted, on A is refused on B and C as soon as the notice arrives, well before their
 * cache entries age out.
 */
describe.skipIf(!ready)('revocation on three instances', () => {
  let a: TestApp;
  let b: BuiltApp;
  let c: BuiltApp;

  beforeAll(async () => {
    const env = { REDIS_URL: process.env.TEST_REDIS_URL as string };
    a = await startTestApp('postgres', env);
    b = await a.startPeer(env);
    c = await a.startPeer(env);
  });
  afterAll(async () => {
    await a?.close();
  });

  it('after a password change on A, the old cookie, refresh token and access tokens fail on A, B and C', async () => {
    const person = await signedInPerson(a);
    const instances = [a.app, b.app, c.app].map((app) => credentialChecks(app));
    for (const check of instances) {
      expect(await check.cookieSignsIn(person)).toBe(true);
      expect(await check.meStatus(person.accessToken)).toBe(200);
      expect(await check.meStatus(person.mintedToken)).toBe(200);
    }

    const changed = await adminClient(a).call('PUT', '/api/v2/users', { userId: person.userId, password: 'changed on instance A' });
    expect(changed.statusCode, changed.body).toBe(200);

    for (const [index, check] of instances.entries()) {
      const where = `instance ${'ABC'[index]}`;
      expect(await check.cookieSignsIn(person), where).toBe(false);
      expect(await check.meStatus(person.accessToken), where).toBe(401);
      expect(await check.meStatus(person.mintedToken), where).toBe(401);
      expect(await check.refresh(person), where).toEqual({ status: 400, error: 'invalid_grant' });
    }
  });

  it('an admin token revoked on A is refused on B and C well within the cache time', async () => {
    const created = await adminClient(a).call('POST', '/api/v2/admin-tokens', { name: a.uniqueId('roaming') });
    expect(created.statusCode, created.body).toBe(200);
    const { token, tokenId } = created.json() as { token: string; tokenId: string };
    const usersOn = (app: BuiltApp | TestApp) => app.app.inject({ method: 'GET', url: '/api/v2/users', headers: { authorization: `Bearer ${token}` } });
    // B and C cache the token now.
    expect((await usersOn(b)).statusCode).toBe(200);
    expect((await usersOn(c)).statusCode).toBe(200);

    const revokedAt = Date.now();
    expect((await adminClient(a).call('DELETE', `/api/v2/admin-tokens/${tokenId}`)).statusCode).toBe(200);
    expect((await usersOn(a)).statusCode).toBe(401);
    // Their cache entries would answer until ADMIN_TOKEN_CACHE_MS after they were made; the notice ends them first.
    const deadline = revokedAt + ADMIN_TOKEN_CACHE_MS / 2;
    for (const peer of [b, c]) {
      let status = (await usersOn(peer)).statusCode;
      while (status === 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        status = (await usersOn(peer)).statusCode;
      }
      expect(status).toBe(401);
    }
    expect(Date.now()).toBeLessThan(deadline);
  });

  it("a bot's client deleted on A gets no more tokens on B, well within the client cache time", async () => {
    const bot = (await adminClient(a).call('POST', '/api/v2/bots', { displayName: 'Short-lived bot' })).json() as { clientId: string; clientSecret: string };
    const grant = () =>
      b.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${bot.clientId}:${bot.clientSecret}`).toString('base64')}`,
        },
        payload: 'grant_type=client_credentials&scope=bot',
      });
    // B caches the client now.
    expect((await grant()).statusCode).toBe(200);
    const deletedAt = Date.now();
    expect((await adminClient(a).call('DELETE', `/api/v2/oauth/clients/${bot.clientId}`)).statusCode).toBe(200);
    const deadline = deletedAt + 1000;
    let status = (await grant()).statusCode;
    while (status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = (await grant()).statusCode;
    }
    expect(status).toBe(401);
    expect(Date.now()).toBeLessThan(deadline);
  });
});
