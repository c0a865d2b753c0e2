import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkAdmins } from '../../../src/modules/identity/network-admins.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { credentialChecks, signedInPerson } from '../../helpers/credentials.js';
import { mergeCookies, signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from '../console/console-signin.js';

const REFUSED_TEXT = 'This password-reset link is not valid';

describe.each(testDatabases)('password-reset links on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let check: ReturnType<typeof credentialChecks>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
    check = credentialChecks(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** POST /api/v2/users/:userId/password-reset: the link's token, from the answered URL. */
  async function linkFor(userId: string): Promise<{ token: string; url: string; expiresAt: string }> {
    const response = await admin.call('POST', `/api/v2/users/${encodeURIComponent(userId)}/password-reset`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { url: string; expiresAt: string };
    const url = new URL(body.url);
    expect(url.pathname).toBe('/reset-password');
    return { token: url.searchParams.get('token') as string, url: body.url, expiresAt: body.expiresAt };
  }

  const openPage = (token: string, cookie = '') =>
    t.app.inject({ method: 'GET', url: `/reset-password?token=${encodeURIComponent(token)}`, headers: cookie ? { cookie } : {} });

  /** Opens the page, then posts the form as a browser does (the CSRF cookie and field of the page). */
  async function submit(token: string, password: string, confirmation = password): Promise<LightMyRequestResponse> {
    const page = await openPage(token);
    expect(page.statusCode, page.body).toBe(200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    return t.app.inject({
      method: 'POST',
      url: '/reset-password',
      headers: { cookie: mergeCookies('', page), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf, token, password, confirmation }).toString(),
    });
  }

  const signInStatus = async (username: string, password: string) => (await signInClient(t).submitLogin({ username, password })).response.statusCode;

  it('works once: sets the password, signs the user out everywhere, and is recorded in the audit trail', async () => {
    const person = await signedInPerson(t);
    const { token, expiresAt } = await linkFor(person.userId);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(expiresAt) - t.clock.now()).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(expiresAt) - t.clock.now()).toBeLessThanOrEqual(30 * 60_000);

    // Stored as its SHA-256 only.
    const stored = await t.storage.db.selectFrom('password_resets').selectAll().where('user_id', '=', person.userId).execute();
    expect(stored.map((row) => row.token_hash)).toEqual([createHash('sha256').update(token).digest('hex')]);

    const page = await openPage(token);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('name="confirmation"');

    const done = await submit(token, 'a brand new password');
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body).toContain('Your password is set');

    expect(await signInStatus(person.username, person.password)).toBe(401);
    expect(await signInStatus(person.username, 'a brand new password')).toBe(303);
    // What the old password got them ends, as a password change ends it.
    expect(await check.cookieSignsIn(person)).toBe(false);
    expect(await check.refresh(person)).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await check.meStatus(person.accessToken)).toBe(401);
    expect(await check.meStatus(person.mintedToken)).toBe(401);

    // Used: the page and the form refuse it, with the one error page.
    const again = await openPage(token);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain(REFUSED_TEXT);
    const replay = await t.app.inject({
      method: 'POST',
      url: '/reset-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, csrf: 'x', password: 'yet another password', confirmation: 'yet another password' }).toString(),
    });
    expect(replay.statusCode).toBe(400);
    expect(await signInStatus(person.username, 'yet another password')).toBe(401);

    const audit = await admin.call('GET', `/api/v2/audit?operation=user.passwordResetLink&target=${person.userId}`);
    const entries = (audit.json() as { entries: Array<{ operation: string; route: string; status: number; targets: Array<{ id: string }> }> }).entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ operation: 'user.passwordResetLink', route: '/api/v2/users/:userId/password-reset', status: 200 });
    expect(entries[0]?.targets.map((target) => target.id)).toContain(person.userId);
    expect(audit.body).not.toContain(token);
  });

  it('a link replaces the one before it; unknown, used and replaced tokens get the same page', async () => {
    const person = await signInClient(t).createPerson();
    const first = await linkFor(person.userId);
    const second = await linkFor(person.userId);
    const replaced = await openPage(first.token);
    const unknown = await openPage('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const empty = await t.app.inject({ method: 'GET', url: '/reset-password' });
    expect([replaced.statusCode, unknown.statusCode, empty.statusCode]).toEqual([400, 400, 400]);
    expect(replaced.body).toBe(unknown.body);
    expect(empty.body).toBe(unknown.body);
    expect((await openPage(second.token)).statusCode).toBe(200);
    expect((await submit(second.token, 'the second link works')).statusCode).toBe(200);
    expect(await signInStatus(person.username, 'the second link works')).toBe(303);
  });

  it('keeps the link live while the form fails a check: short, long or differing passwords, a missing CSRF field', async () => {
    const person = await signInClient(t).createPerson();
    const { token } = await linkFor(person.userId);
    const short = await submit(token, 'short');
    expect([short.statusCode, short.body.includes('at least 8 characters')]).toEqual([400, true]);
    const long = await submit(token, 'x'.repeat(257));
    expect([long.statusCode, long.body.includes('at most 256 characters')]).toEqual([400, true]);
    const differ = await submit(token, 'first password', 'second password');
    expect([differ.statusCode, differ.body.includes('The two passwords differ.')]).toEqual([400, true]);
    const forged = await t.app.inject({
      method: 'POST',
      url: '/reset-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ token, password: 'forged password', confirmation: 'forged password' }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect(await signInStatus(person.username, 'forged password')).toBe(401);
    expect(await signInStatus(person.username, person.password)).toBe(303);
    expect((await submit(token, 'x'.repeat(256))).statusCode).toBe(200);
    expect(await signInStatus(person.username, 'x'.repeat(256))).toBe(303);
  });

  it('is for network admins only: a moderator holding EDIT_USER is refused; unknown users, bots and users without a username have none', async () => {
    const password = 'reset moderator 1';
    const role = t.uniqueId('editors');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['EDIT_USER', 'BAN_USER'] });
    const moderatorId = t.uniqueId('mod');
    await admin.createUser(moderatorId, { username: moderatorId, password, roles: [role] });
    const rootName = t.uniqueId('root');
    await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username: rootName, password, displayName: 'Root' });
    const tokenOf = async (username: string) =>
      (await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) })).accessToken as string;
    const person = await signInClient(t).createPerson();
    const asModerator = await t.app.inject({
      method: 'POST',
      url: `/api/v2/users/${person.userId}/password-reset`,
      headers: { authorization: `Bearer ${await tokenOf(moderatorId)}` },
    });
    expect([asModerator.statusCode, asModerator.json().code]).toEqual([403, 400301]);
    expect(await t.storage.db.selectFrom('password_resets').selectAll().where('user_id', '=', person.userId).execute()).toEqual([]);
    const asRoot = await t.app.inject({
      method: 'POST',
      url: `/api/v2/users/${person.userId}/password-reset`,
      headers: { authorization: `Bearer ${await tokenOf(rootName)}` },
    });
    expect(asRoot.statusCode, asRoot.body).toBe(200);

    expect((await admin.call('POST', '/api/v2/users/nobody-at-all/password-reset')).statusCode).toBe(404);
    const bot = await createBot(t, 'No password bot');
    expect((await admin.call('POST', `/api/v2/users/${bot.userId}/password-reset`)).statusCode).toBe(409);
    const nameless = t.uniqueId('nameless');
    await admin.createUser(nameless, { displayName: 'No username' });
    expect((await admin.call('POST', `/api/v2/users/${nameless}/password-reset`)).statusCode).toBe(409);
  });

  it('expires after 30 minutes', async () => {
    const person = await signInClient(t).createPerson();
    const { token } = await linkFor(person.userId);
    expect((await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 29 * 60_000 })).statusCode).toBe(200);
    expect((await openPage(token)).statusCode).toBe(200);
    expect((await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 30 * 60_000 + 1000 })).statusCode).toBe(200);
    const expired = await openPage(token);
    expect([expired.statusCode, expired.body.includes(REFUSED_TEXT)]).toEqual([400, true]);
    expect(await signInStatus(person.username, person.password)).toBe(303);
  });
});
