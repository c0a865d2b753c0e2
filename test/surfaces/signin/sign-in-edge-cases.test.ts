import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAuthorizationParameters, redirectUriCandidates } from '../../../src/modules/identity/authorize/parameters.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** RFC 6749 sections 4.1.2.1 and 5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E. */
const ERROR_DESCRIPTION = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Sign-in at its edges: NUL characters (a 4xx, on PostgreSQL too), CORS for browser apps, every
 * advertised prompt value honoured, id_token_hint, refresh scope,
 * unencoded redirect URIs, error_description's character set, redirect URIs that cannot be a header,
 * and the issuer as configured.
 */
describe.each(testDatabases)('sign-in edge cases on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const basicOf = (client: { clientId: string; clientSecret: string | null }) => ({ id: client.clientId, secret: client.clientSecret as string });
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  it('refuses a NUL character in every sign-in input with a 4xx of the surface, never a 500', async () => {
    const client = await s.createOAuthClient();
    const tokenForm = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: form,
      payload: 'grant_type=authorization_code&code=x&redirect_uri=y&client_id=a%00b&client_secret=z',
    });
    expect(tokenForm.statusCode).toBe(400);
    expect(tokenForm.json()).toMatchObject({ status: 'error', error: 'invalid_request' });
    const basic = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...form, authorization: `Basic ${Buffer.from('a\u0000b:secret').toString('base64')}` },
      payload: 'grant_type=authorization_code&code=x&redirect_uri=y',
    });
    expect(basic.statusCode).toBe(401);
    expect(basic.json()).toMatchObject({ error: 'invalid_client' });

    const authorizeQuery = await t.app.inject({
      method: 'GET',
      url: '/oauth/authorize?client_id=a%00b&redirect_uri=https://x&response_type=code&scope=openid',
    });
    expect(authorizeQuery.statusCode).toBe(400);
    expect(authorizeQuery.headers['content-type']).toContain('text/html');
    expect(authorizeQuery.body).toContain('NUL character');
    expect((await t.app.inject({ method: 'GET', url: '/login?client_id=a%00b' })).statusCode).toBe(400);

    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const nonce = await s.authorize(
      `${s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', state: 'n' })}&nonce=a%00b`,
      cookie,
    );
    expect(nonce.statusCode).toBe(400);
    expect(nonce.headers.location).toBeUndefined();

    const { response } = await s.submitLogin({ username: `${person.username}\u0000x`, password: person.password });
    expect(response.statusCode).toBe(400);
    // The refusals are not sign-in failures: the account is not throttled by them.
    expect((await s.submitLogin({ username: person.username, password: person.password })).response.statusCode).toBe(303);
  });

  it('answers CORS for what a browser app calls (discovery, token, userinfo, client API, tray), and not for sign-in pages or the admin API', async () => {
    const origin = 'https://spa.example';
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/oauth/token',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': expect.stringContaining('POST') });
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('authorization');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    for (const url of ['/.well-known/openid-configuration', '/oauth/jwks', '/client/v1/me', '/notifications/history', '/userinfo']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin } });
      expect([url, response.headers['access-control-allow-origin']]).toEqual([url, '*']);
    }
    const unauthorized = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { origin } });
    expect(String(unauthorized.headers['access-control-expose-headers'])).toContain('www-authenticate');
    for (const url of ['/login', '/oauth/authorize?client_id=x', '/api/v2/roles']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin } });
      expect([url, response.headers['access-control-allow-origin']]).toEqual([url, undefined]);
    }
    // A preflight elsewhere is left to the router: the envelope's 405, naming the methods the path serves.
    const adminPreflight = await t.app.inject({ method: 'OPTIONS', url: '/api/v2/roles', headers: { origin, 'access-control-request-method': 'GET' } });
    expect(adminPreflight.statusCode).toBe(405);
    expect(adminPreflight.json()).toMatchObject({ status: 'error', code: 400400 });
    expect(adminPreflight.headers.allow).toContain('GET');
    expect(adminPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('asks for the sign-in again on prompt=select_account and prompt=consent, then issues the code', async () => {
    for (const prompt of ['select_account', 'consent']) {
      const { client, cookie, person } = await s.codeFor();
      const query = s.authorizeQuery({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'openid',
        prompt,
        state: 'p',
      });
      const asked = await s.authorize(query, cookie);
      expect([prompt, asked.statusCode, String(asked.headers.location).startsWith('/login?')]).toEqual([prompt, 302, true]);
      const page = await t.app.inject({ method: 'GET', url: String(asked.headers.location), headers: { cookie } });
      expect(page.body).toContain('Test app');
      const { response } = await s.submitLogin({
        username: person.username,
        password: person.password,
        query: String(asked.headers.location).slice('/login?'.length),
        cookie,
      });
      expect(s.redirectParams(response).get('code')).toMatch(/.+/);
    }
  });

  it('honours id_token_hint: prompt=none for another user is login_required, for the same user a code, and a hint that is no JWT is invalid_request', async () => {
    const a = await s.codeFor();
    const tokens = (await s.token({ grant_type: 'authorization_code', code: a.code, redirect_uri: a.client.redirectUri }, basicOf(a.client))).json();
    const base = { response_type: 'code', client_id: a.client.clientId, redirect_uri: a.client.redirectUri, scope: 'openid', prompt: 'none' };
    const same = await s.authorize(s.authorizeQuery({ ...base, id_token_hint: tokens.id_token }), a.cookie);
    expect(s.redirectParams(same).get('code')).toMatch(/.+/);

    const other = await s.createPerson();
    const otherCookie = await s.login(other.username, other.password);
    const mismatch = await s.authorize(s.authorizeQuery({ ...base, id_token_hint: tokens.id_token }), otherCookie);
    expect(s.redirectParams(mismatch).get('error')).toBe('login_required');
    expect(s.redirectParams(mismatch).get('code')).toBeNull();
    // Without prompt=none, the user is asked to sign in (as the hinted user).
    const { prompt: _none, ...interactive } = base;
    const asked = await s.authorize(s.authorizeQuery({ ...interactive, id_token_hint: tokens.id_token }), otherCookie);
    expect(String(asked.headers.location)).toMatch(/^\/login\?/);

    const garbage = await s.authorize(s.authorizeQuery({ ...base, id_token_hint: 'not-a-jwt' }), a.cookie);
    expect(s.redirectParams(garbage).get('error')).toBe('invalid_request');
  });

  it('keeps the refresh token scope when a refresh asks for less (RFC 6749 section 6)', async () => {
    const { client, code } = await s.codeFor({ scope: 'openid profile' });
    const first = (await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basicOf(client))).json();
    const narrowed = (await s.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'openid' }, basicOf(client))).json();
    expect(narrowed.scope).toBe('openid');
    expect(decodeJwt(narrowed.id_token).name).toBeUndefined();
    const plain = (await s.token({ grant_type: 'refresh_token', refresh_token: narrowed.refresh_token }, basicOf(client))).json();
    expect(plain.scope).toBe('openid profile');
    const wide = await s.token({ grant_type: 'refresh_token', refresh_token: plain.refresh_token, scope: 'openid profile' }, basicOf(client));
    expect(wide.statusCode).toBe(200);
    const wider = await s.token({ grant_type: 'refresh_token', refresh_token: wide.json().refresh_token, scope: 'openid profile email' }, basicOf(client));
    expect(wider.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('reads an unencoded redirect_uri holding a percent-escape or a plus as written', async () => {
    for (const registered of ['https://app.example/cb?return=%2Fhome', 'https://app.example/cb?q=a+b']) {
      const client = await s.createOAuthClient({ redirectUris: [registered] });
      const person = await s.createPerson();
      const cookie = await s.login(person.username, person.password);
      const response = await t.app.inject({
        method: 'GET',
        url: `/oauth/authorize?response_type=code&client_id=${client.clientId}&redirect_uri=${registered}&scope=openid&state=s1`,
        headers: { cookie },
      });
      expect(response.statusCode).toBe(302);
      expect(String(response.headers.location).startsWith(`${registered}&code=`)).toBe(true);
    }
  });

  it('refuses a token sent both in the header and in the body of userinfo (RFC 6750 section 2)', async () => {
    const { client, code } = await s.codeFor();
    const tokens = (await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basicOf(client))).json();
    const both = await t.app.inject({
      method: 'POST',
      url: '/userinfo',
      headers: { ...form, authorization: `Bearer ${tokens.access_token}` },
      payload: `access_token=${tokens.access_token}`,
    });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ error: 'invalid_request' });
    expect(String(both.headers['www-authenticate'])).toContain('error="invalid_request"');
    const bodyOnly = await t.app.inject({ method: 'POST', url: '/userinfo', headers: form, payload: `access_token=${tokens.access_token}` });
    expect(bodyOnly.statusCode).toBe(200);
  });

  it('keeps error_description inside the RFC 6749 character set and does not repeat what the request said', async () => {
    const client = await s.createOAuthClient();
    const lure = 'Your\u00a0account is locked "call" +1-555-0100 \u20ac';
    const redirected = await s.authorize(
      s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', prompt: lure }),
    );
    const description = s.redirectParams(redirected).get('error_description') as string;
    expect(description).toMatch(ERROR_DESCRIPTION);
    expect(description).not.toContain('locked');
    const grant = (await s.token({ grant_type: 'p\u00e4ss"word call +1-555' }, basicOf(client))).json();
    expect(grant.error).toBe('unsupported_grant_type');
    expect(grant.error_description).toMatch(ERROR_DESCRIPTION);
    expect(grant.error_description).not.toContain('555');
    const repeated = (await s.token({ grant_type: 'refresh_token', refresh_token: 'x' }, basicOf(client))).json();
    expect(repeated.error_description).toMatch(ERROR_DESCRIPTION);
  });

  it('refuses a redirect URI that is not printable ASCII at registration; one stored earlier gets an error page, not a 500', async () => {
    const refused = await s.admin.call('POST', '/api/v2/oauth/clients', {
      name: 'x',
      redirectUris: ['https://app.example/cb', 'https://app.example/cb?next=\u20ac'],
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().data.fields).toEqual([expect.objectContaining({ field: 'body.redirectUris[1]' })]);
    expect((await s.admin.call('POST', '/api/v2/oauth/clients', { name: 'x', redirectUris: ['https://app.example/a b'] })).statusCode).toBe(422);

    const client = await s.createOAuthClient();
    const stored = 'https://app.example/cb?next=\u20ac';
    await t.storage.db
      .updateTable('oauth_clients')
      .set({ redirect_uris: JSON.stringify([stored]) })
      .where('client_id', '=', client.clientId)
      .execute();
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const response = await s.authorize(s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: stored, scope: 'openid' }), cookie);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/html');
    expect(response.body).toContain('percent-encoded');
  });
});

describe('sign-in: the issuer as configured', () => {
  it('keeps a trailing slash of OIDC_ISSUER in discovery and in iss, and serves discovery under it', async () => {
    const issuer = 'http://127.0.0.1:8080/oauth/authorize/';
    const t = await startTestApp('sqlite', { PUBLIC_URL: 'http://127.0.0.1:8080', OIDC_ISSUER: issuer });
    try {
      const s = signInClient(t);
      const discovery = (await t.app.inject({ method: 'GET', url: '/oauth/authorize/.well-known/openid-configuration' })).json();
      expect(discovery.issuer).toBe(issuer);
      const { client, code } = await s.codeFor();
      const body = (
        await s.token(
          { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
          { id: client.clientId, secret: client.clientSecret as string },
        )
      ).json();
      expect(decodeJwt(body.id_token).iss).toBe(issuer);
    } finally {
      await t.close();
    }
  });
});

describe('sign-in: the lenient redirect_uri reading', () => {
  it('builds no candidate longer than the longest registered URI, however many parameters follow', () => {
    const params = parseAuthorizationParameters(`client_id=c&redirect_uri=https://app.example/cb?x=1${'&a'.repeat(7_000)}&state=s`);
    const candidates = redirectUriCandidates(params, 40);
    expect(candidates.length).toBeLessThan(30);
    expect(Math.max(...candidates.map((candidate) => candidate.length))).toBeLessThanOrEqual(40);
    expect(candidates).toContain('https://app.example/cb?x=1&a=&a=');
  });
});
