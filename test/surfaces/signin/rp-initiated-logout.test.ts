import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import * as oidc from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createClientFromCli } from '../../../src/modules/identity/identity.cli.js';
import { freePort, signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type RegisteredClient = Awaited<ReturnType<ReturnType<typeof signInClient>['createOAuthClient']>>;

/**
 * OpenID Connect RP-Initiated Logout 1.0 at /logout (the end_session_endpoint): a client sends the
 * browser to sign out, with an id_token_hint (expired ones too), client_id, a registered
 * post_logout_redirect_uri and state. The session ends (row deleted, cookie cleared) and the browser
 * goes back to the client; a request that fails a check changes nothing and redirects nowhere.
 */
describe.each(testDatabases)('sign-in: RP-Initiated Logout on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp(database, { PUBLIC_URL: base });
    await t.app.listen({ port, host: '127.0.0.1' });
    s = signInClient(t);
  });
  afterEach(() => {
    t.clock.setOffset(0);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function logoutClient(extra: Record<string, unknown> = {}): Promise<RegisteredClient> {
    const bye = `https://rp.example/${t.uniqueId('bye')}`;
    return s.createOAuthClient({ postLogoutRedirectUris: [bye], ...extra });
  }

  /** A person signed in at Parley, with the ID token `client` got for them. */
  async function signedIn(client: RegisteredClient) {
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const authorized = await s.authorize(
      s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', state: 'st' }),
      cookie,
    );
    const code = s.redirectParams(authorized).get('code') as string;
    const tokens = (
      await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
        { id: client.clientId, secret: client.clientSecret as string },
      )
    ).json() as { id_token: string };
    return { person, cookie, idToken: tokens.id_token };
  }

  const logout = (query: Record<string, string>, cookie: string): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'GET', url: `/logout?${new URLSearchParams(query).toString()}`, headers: cookie ? { cookie } : {} });

  /** Whether the session cookie still signs in: /login shows who is signed in rather than the form. */
  const stillSignedIn = async (cookie: string): Promise<boolean> =>
    !(await t.app.inject({ method: 'GET', url: '/login', headers: { cookie } })).body.includes('name="password"');

  const sessionRows = async (userId: string): Promise<number> =>
    (await t.storage.db.selectFrom('login_sessions').select('id').where('user_id', '=', userId).execute()).length;

  it('names /logout as the end_session_endpoint, and clients register post-logout redirect URIs', async () => {
    const metadata = (await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
    expect(metadata.end_session_endpoint).toBe(`${base}/logout`);
    const client = await logoutClient();
    const record = (await s.admin.call('GET', `/api/v2/oauth/clients/${client.clientId}`)).json();
    expect(record.postLogoutRedirectUris).toEqual(client.postLogoutRedirectUris);
    const refused = await s.admin.call('POST', '/api/v2/oauth/clients', {
      name: 'x',
      redirectUris: ['https://rp.example/cb'],
      postLogoutRedirectUris: ['javascript:alert(1)'],
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().data.fields[0].field).toBe('body.postLogoutRedirectUris[0]');
  });

  it('signs out an openid-client relying party with its ID token and sends the browser back with the state', async () => {
    const client = await logoutClient();
    const { person, cookie, idToken } = await signedIn(client);
    const config = await oidc.discovery(new URL(base), client.clientId, client.clientSecret as string, undefined, {
      execute: [oidc.allowInsecureRequests],
    });
    const endSession = oidc.buildEndSessionUrl(config, {
      id_token_hint: idToken,
      post_logout_redirect_uri: client.postLogoutRedirectUris[0] as string,
      state: 'bye-123',
    });
    const response = await fetch(endSession, { redirect: 'manual', headers: { cookie } });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(`${client.postLogoutRedirectUris[0]}?state=bye-123`);
    expect(response.headers.getSetCookie().some((line) => /^parley_session=;/.test(line))).toBe(true);
    expect(await sessionRows(person.userId)).toBe(0);
    expect(await stillSignedIn(cookie)).toBe(false);
    const authorize = await s.authorize(
      s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid' }),
      cookie,
    );
    expect(authorize.headers.location).toMatch(/^\/login\?/);
  });

  it('asks the person first without an id_token_hint, then signs out and redirects', async () => {
    const client = await logoutClient();
    const { person, cookie } = await signedIn(client);
    const uri = client.postLogoutRedirectUris[0] as string;
    const asked = await logout({ client_id: client.clientId, post_logout_redirect_uri: uri, state: 's1' }, cookie);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Sign out?');
    expect(asked.body).toContain('Test app');
    expect(await stillSignedIn(cookie)).toBe(true);
    const form = new URLSearchParams({ csrf: s.csrfOf(asked.body) });
    for (const [, name, value] of asked.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      if (name !== 'csrf') form.set(name as string, (value as string).replace(/&#38;/g, '&'));
    }
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie: s.mergeCookies(cookie, asked), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe(`${uri}?state=s1`);
    expect(await sessionRows(person.userId)).toBe(0);
    expect(await stillSignedIn(cookie)).toBe(false);
  });

  it('refuses unregistered redirect URIs and hints it did not sign, redirecting nowhere and keeping the session', async () => {
    const client = await logoutClient();
    const other = await logoutClient();
    const { person, cookie, idToken } = await signedIn(client);
    const uri = client.postLogoutRedirectUris[0] as string;
    const [header, payload] = idToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${idToken.split('.')[2]}`;
    const foreign = await new SignJWT({ sub: person.userId, aud: client.clientId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('https://other-idp.example')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(client.clientSecret as string));
    const wrongKey = await new SignJWT({ sub: person.userId, aud: client.clientId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(t.config.oidcIssuer)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-client-secret-but-long-enough'));
    const otherRsa = await new SignJWT({ sub: person.userId, aud: client.clientId })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(t.config.oidcIssuer)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    const requests: Array<Record<string, string>> = [
      { id_token_hint: idToken, post_logout_redirect_uri: 'https://attacker.example/bye', state: 'x' },
      { id_token_hint: idToken, post_logout_redirect_uri: `${uri}/more` },
      { id_token_hint: idToken, post_logout_redirect_uri: other.postLogoutRedirectUris[0] as string },
      { client_id: client.clientId, post_logout_redirect_uri: client.redirectUri },
      { post_logout_redirect_uri: uri },
      { id_token_hint: tampered, post_logout_redirect_uri: uri },
      { id_token_hint: foreign, post_logout_redirect_uri: uri },
      { id_token_hint: wrongKey, post_logout_redirect_uri: uri },
      { id_token_hint: otherRsa, post_logout_redirect_uri: uri },
      { id_token_hint: 'not-a-jwt' },
      { id_token_hint: idToken, client_id: other.clientId },
      { client_id: 'no-such-client' },
    ];
    for (const query of requests) {
      const response = await logout(query, cookie);
      expect([response.statusCode, response.headers.location], JSON.stringify(query)).toEqual([400, undefined]);
      expect(response.headers['content-type']).toContain('text/html');
      expect(response.body).toContain('This sign-out request cannot be completed');
    }
    const repeated = await t.app.inject({
      method: 'GET',
      url: `/logout?state=a&state=b&post_logout_redirect_uri=${encodeURIComponent(uri)}`,
      headers: { cookie },
    });
    expect(repeated.statusCode).toBe(400);
    expect(await stillSignedIn(cookie)).toBe(true);
    expect(await sessionRows(person.userId)).toBe(1);
  });

  it('accepts an expired ID token of its own as the hint (RS256, checked with the server key)', async () => {
    const client = await logoutClient({ idTokenSignedResponseAlg: 'RS256' });
    const { cookie, idToken } = await signedIn(client);
    t.clock.setOffset(2 * 3600 * 1000);
    const uri = client.postLogoutRedirectUris[0] as string;
    const response = await logout({ id_token_hint: idToken, post_logout_redirect_uri: uri }, cookie);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(uri);
    expect(await stillSignedIn(cookie)).toBe(false);
  });

  it('asks when the hint names someone other than the person signed in', async () => {
    const client = await logoutClient();
    const { idToken } = await signedIn(client);
    const { cookie } = await signedIn(client);
    const response = await logout({ id_token_hint: idToken, post_logout_redirect_uri: client.postLogoutRedirectUris[0] as string }, cookie);
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('Sign out?');
    expect(await stillSignedIn(cookie)).toBe(true);
  });

  it('appends the state to a URI with its own query, and redirects at once when no one is signed in', async () => {
    const client = await logoutClient({ postLogoutRedirectUris: ['https://rp.example/bye?from=parley'] });
    const response = await logout({ client_id: client.clientId, post_logout_redirect_uri: 'https://rp.example/bye?from=parley', state: 'a b&c' }, '');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('https://rp.example/bye?from=parley&state=a+b%26c');
  });

  it('takes a logout request by POST; without the session cookie it goes on as a GET, which carries it', async () => {
    const client = await logoutClient();
    const { cookie, idToken } = await signedIn(client);
    const uri = client.postLogoutRedirectUris[0] as string;
    const payload = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: uri, state: 'p' }).toString();
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const crossSite = await t.app.inject({ method: 'POST', url: '/logout', headers, payload });
    expect(crossSite.statusCode).toBe(303);
    const next = String(crossSite.headers.location);
    expect(next.startsWith('/logout?')).toBe(true);
    expect(await stillSignedIn(cookie)).toBe(true);
    const followed = await t.app.inject({ method: 'GET', url: next, headers: { cookie } });
    expect([followed.statusCode, followed.headers.location]).toEqual([302, `${uri}?state=p`]);
    expect(await stillSignedIn(cookie)).toBe(false);

    const again = await signedIn(client);
    const sameSite = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { ...headers, cookie: again.cookie },
      payload: new URLSearchParams({ id_token_hint: again.idToken, post_logout_redirect_uri: uri }).toString(),
    });
    expect([sameSite.statusCode, sameSite.headers.location]).toEqual([303, uri]);
    expect(await stillSignedIn(again.cookie)).toBe(false);
  });

  it('registers post-logout redirect URIs from the command line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
    const lines: string[] = [];
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      const args = ['--name', 'CLI app', '--redirect-uri', 'https://cli.example/cb', '--post-logout-redirect-uri', 'https://cli.example/bye'];
      expect(await createClientFromCli(args, (line) => lines.push(line), env)).toBe(0);
      expect(lines.join('\n')).toMatch(/post_logout_redirect_uris\s+https:\/\/cli\.example\/bye/);
      const bad = [...args.slice(0, 4), '--post-logout-redirect-uri', 'not a uri'];
      expect(await createClientFromCli(bad, (line) => lines.push(line), env)).toBe(2);
      expect(lines.at(-1)).toContain('--post-logout-redirect-uri');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
