import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcePair, signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('sign-in: authorization code flow on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves discovery metadata for the issuer', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    expect(response.statusCode).toBe(200);
    const metadata = response.json();
    expect(metadata).toMatchObject({
      issuer: t.config.oidcIssuer,
      authorization_endpoint: `${t.config.publicUrl}/oauth/authorize`,
      token_endpoint: `${t.config.publicUrl}/oauth/token`,
      userinfo_endpoint: `${t.config.publicUrl}/userinfo`,
      jwks_uri: `${t.config.publicUrl}/oauth/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['HS256', 'RS256']);
    const jwks = (await t.app.inject({ method: 'GET', url: '/oauth/jwks' })).json();
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('sends a browser without a session to the login page, then back to the client with a code and the state', async () => {
    const person = await s.createPerson();
    const client = await s.createOAuthClient();
    const query = s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', state: 'st-123' });
    const first = await s.authorize(query);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toMatch(/^\/login\?/);
    const loginQuery = String(first.headers.location).slice('/login?'.length);

    const page = await t.app.inject({ method: 'GET', url: first.headers.location as string });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('name="viewport"');
    expect(page.body).toContain('Test app');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const wrong = await s.submitLogin({ username: person.username, password: 'not the password', query: loginQuery });
    expect(wrong.response.statusCode).toBe(401);
    expect(wrong.response.body).toContain('The username or password is incorrect.');

    const { response, cookie } = await s.submitLogin({ username: person.username, password: person.password, query: loginQuery });
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location).startsWith(`${client.redirectUri}?`)).toBe(true);
    const params = s.redirectParams(response);
    expect(params.get('state')).toBe('st-123');
    expect(params.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('iss')).toBe(t.config.oidcIssuer);
    const setCookie = ([] as string[]).concat(response.headers['set-cookie'] ?? []).join('\n');
    expect(setCookie).toMatch(/parley_session=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/parley_session=[^;]+;.*SameSite=Lax/i);

    // The session now signs the user in without a form.
    const again = await s.authorize(query, cookie);
    expect(again.statusCode).toBe(302);
    expect(s.redirectParams(again).get('code')).toBeTruthy();
  });

  it('exchanges a code for the token response of docs/contract.md (Sign-in details), with an HS256 ID token keyed by the secret', async () => {
    const { person, client, code } = await s.codeFor({ extra: { nonce: 'n-0S6_WzA2Mj' } });
    const response = await s.token(
      { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
      { id: client.clientId, secret: client.clientSecret as string },
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache, no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid' });

    expect(decodeProtectedHeader(body.id_token).alg).toBe('HS256');
    const { payload } = await jwtVerify(body.id_token, new TextEncoder().encode(client.clientSecret as string), {
      issuer: t.config.oidcIssuer,
      audience: client.clientId,
    });
    expect(Object.keys(payload).sort()).toEqual(['aud', 'email', 'exp', 'firstname', 'iat', 'iss', 'lastname', 'nonce', 'sub']);
    expect(payload).toMatchObject({ sub: person.userId, firstname: 'Ada', lastname: 'Lovelace', email: `${person.userId}@example.com`, nonce: 'n-0S6_WzA2Mj' });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);

    // The access token works on the client API and on userinfo.
    const me = await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${body.access_token}` } });
    expect(me.statusCode).toBe(200);
    // Stored hashed only.
    const rows =
      JSON.stringify(await t.storage.db.selectFrom('tokens').selectAll().execute()) +
      JSON.stringify(await t.storage.db.selectFrom('refresh_tokens').selectAll().execute());
    expect(rows).not.toContain(body.access_token);
    expect(rows).not.toContain(body.refresh_token);
  });

  it('puts name and email, not firstname and lastname, in the ID token for scope openid profile', async () => {
    const { client, code } = await s.codeFor({ scope: 'openid profile' });
    const body = (
      await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
        { id: client.clientId, secret: client.clientSecret as string },
      )
    ).json();
    expect(body.scope).toBe('openid profile');
    const claims = decodeJwt(body.id_token);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'email', 'exp', 'iat', 'iss', 'name', 'sub']);
    expect(claims.name).toBe('Ada Lovelace');
  });

  it("answers userinfo with the original's fields as strings, never null, and the standard claims that have a value, on GET and POST", async () => {
    const { person, client, code } = await s.codeFor();
    const { access_token: accessToken } = (
      await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
        { id: client.clientId, secret: client.clientSecret as string },
      )
    ).json();
    for (const method of ['GET', 'POST'] as const) {
      const response = await t.app.inject({ method, url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } });
      expect(response.statusCode).toBe(200);
      const info = response.json();
      for (const field of [
        '_id',
        'nid',
        'network_admin',
        'username',
        'firstname',
        'lastname',
        'email',
        'avatar',
        'position',
        'status',
        'sub',
        'name',
        'given_name',
        'family_name',
        'preferred_username',
        'title',
        'networkId',
      ]) {
        expect(typeof info[field], field).toBe('string');
      }
      // No avatar: the standard picture claim is left out (OpenID Connect Core 5.3.2), avatar is "".
      expect(info).not.toHaveProperty('picture');
      expect(info).toMatchObject({
        _id: person.userId,
        sub: person.userId,
        username: person.username,
        given_name: 'Ada',
        family_name: 'Lovelace',
        avatar: '',
        position: '',
      });
      expect(info.extras).toEqual({});
      expect(info.nid).toBe(info.networkId);
    }
    const viaForm = await t.app.inject({
      method: 'POST',
      url: '/userinfo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `access_token=${accessToken}`,
    });
    expect(viaForm.statusCode).toBe(200);

    const missing = await t.app.inject({ method: 'GET', url: '/userinfo' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer realm="parley"/);
    expect(missing.json()).toMatchObject({ status: 'error', code: 400100, error: 'invalid_token' });
    const bad = await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: 'Bearer nope' } });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(bad.json()).toMatchObject({
      status: 'error',
      code: 400100,
      error: 'invalid_token',
      error_description: 'Token is invalid or expired.',
      data: { detail: [] },
    });
  });

  it('rotates refresh tokens, and a reused refresh token revokes its whole family', async () => {
    const { client, code } = await s.codeFor();
    const basic = { id: client.clientId, secret: client.clientSecret as string };
    const first = (await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic)).json();
    // The original's SDKs send redirect_uri along with the refresh grant: tolerated.
    const refreshed = await s.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, redirect_uri: client.redirectUri }, basic);
    expect(refreshed.statusCode).toBe(200);
    const second = refreshed.json();
    expect(Object.keys(second).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.headers['cache-control']).toBe('no-cache, no-store');

    // Past the reuse window (30 s by default), a second use of the rotated token is a replay.
    t.clock.setOffset(31_000);
    const replay = await s.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic).finally(() => t.clock.setOffset(0));
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ status: 'error', error: 'invalid_grant' });
    const userinfo = await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${second.access_token}` } });
    expect(userinfo.statusCode).toBe(401);
    const afterReplay = await s.token({ grant_type: 'refresh_token', refresh_token: second.refresh_token }, basic);
    expect(afterReplay.json().error).toBe('invalid_grant');
  });

  it('narrows the scope on refresh but keeps openid, so every refresh answers an ID token', async () => {
    const { client, code } = await s.codeFor({ scope: 'openid profile' });
    const basic = { id: client.clientId, secret: client.clientSecret as string };
    const first = (await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic)).json();
    expect(first.scope).toBe('openid profile');
    const withoutOpenid = await s.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'profile' }, basic);
    expect(withoutOpenid.statusCode).toBe(400);
    expect(withoutOpenid.json()).toMatchObject({ status: 'error', error: 'invalid_scope' });
    // Refused before anything was used: the same refresh token still works, narrowed to openid.
    const narrowed = await s.token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'openid' }, basic);
    expect(narrowed.statusCode).toBe(200);
    const body = narrowed.json();
    expect(body.scope).toBe('openid');
    expect(Object.keys(decodeJwt(body.id_token)).sort()).toEqual(['aud', 'email', 'exp', 'firstname', 'iat', 'iss', 'lastname', 'sub']);
  });

  it('accepts client credentials in the form body and Basic credentials form-encoded or raw', async () => {
    const viaBody = await s.codeFor();
    const body = await s.token({
      grant_type: 'authorization_code',
      code: viaBody.code,
      redirect_uri: viaBody.client.redirectUri,
      client_id: viaBody.client.clientId,
      client_secret: viaBody.client.clientSecret as string,
    });
    expect(body.statusCode).toBe(200);

    const viaEncoded = await s.codeFor();
    const encoded = `${encodeURIComponent(viaEncoded.client.clientId)}:${encodeURIComponent(viaEncoded.client.clientSecret as string)}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(encoded).toString('base64')}` },
      payload: new URLSearchParams({ grant_type: 'authorization_code', code: viaEncoded.code, redirect_uri: viaEncoded.client.redirectUri }).toString(),
    });
    expect(response.statusCode).toBe(200);
  });

  it('carries both the envelope and the OAuth error fields on token errors', async () => {
    const GRANT_REFUSED = 'This grant_type is not supported: use authorization_code, refresh_token or client_credentials.';
    const response = await s.token({ grant_type: 'password', username: 'a', password: 'b' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      status: 'error',
      code: 400000,
      message: GRANT_REFUSED,
      data: { detail: [], fields: [] },
      error: 'unsupported_grant_type',
      error_description: GRANT_REFUSED,
    });
    expect(response.headers['cache-control']).toBe('no-cache, no-store');
    const json = await t.app.inject({ method: 'POST', url: '/oauth/token', payload: { grant_type: 'authorization_code' } });
    expect(json.json()).toMatchObject({ error: 'invalid_request', code: 400000 });
    // Refused while the body is read, before the handler: not cacheable either.
    for (const [contentType, payload] of [
      ['text/plain', 'grant_type=client_credentials'],
      ['application/json', '{broken'],
    ]) {
      const early = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': contentType as string }, payload: payload as string });
      expect(early.statusCode).toBeGreaterThanOrEqual(400);
      expect(early.statusCode).toBeLessThan(500);
      expect(early.json()).toMatchObject({ status: 'error' });
      expect(early.headers['cache-control']).toBe('no-cache, no-store');
      expect(early.headers.pragma).toBe('no-cache');
    }
  });

  it('supports PKCE S256, and requires it of public clients', async () => {
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const client = await s.createOAuthClient({ public: true });
    expect(client.clientSecret).toBeNull();
    const base = { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', state: 'pk' };

    const without = s.redirectParams(await s.authorize(s.authorizeQuery(base), cookie));
    expect(without.get('error')).toBe('invalid_request');
    expect(without.get('state')).toBe('pk');
    const plain = s.redirectParams(
      await s.authorize(s.authorizeQuery({ ...base, code_challenge: pkcePair().challenge, code_challenge_method: 'plain' }), cookie),
    );
    expect(plain.get('error')).toBe('invalid_request');

    const pkce = pkcePair();
    const code = s
      .redirectParams(await s.authorize(s.authorizeQuery({ ...base, code_challenge: pkce.challenge, code_challenge_method: 'S256' }), cookie))
      .get('code') as string;
    const wrong = await s.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong.json().error).toBe('invalid_grant');
    const right = await s.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
      code_verifier: pkce.verifier,
    });
    expect(right.statusCode).toBe(200);
    // A public client's ID token is RS256, checked against /oauth/jwks.
    const idToken = right.json().id_token as string;
    expect(decodeProtectedHeader(idToken).alg).toBe('RS256');
    const { createLocalJWKSet } = await import('jose');
    const jwks = createLocalJWKSet((await t.app.inject({ method: 'GET', url: '/oauth/jwks' })).json());
    const { payload } = await jwtVerify(idToken, jwks, { issuer: t.config.oidcIssuer, audience: client.clientId });
    expect(payload.sub).toBe(person.userId);
  });

  it('signs RS256 ID tokens for a confidential client that asks for them', async () => {
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const client = await s.createOAuthClient({ idTokenSignedResponseAlg: 'RS256' });
    const code = s
      .redirectParams(
        await s.authorize(s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid' }), cookie),
      )
      .get('code') as string;
    const body = (
      await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
        { id: client.clientId, secret: client.clientSecret as string },
      )
    ).json();
    const header = decodeProtectedHeader(body.id_token);
    expect(header.alg).toBe('RS256');
    const jwks = (await t.app.inject({ method: 'GET', url: '/oauth/jwks' })).json();
    expect(header.kid).toBe(jwks.keys[0].kid);
  });

  it('reads a sloppy authorize URL: unencoded redirect_uri with its own query, and a raw space in scope', async () => {
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const registered = `https://app.example/${t.uniqueId('cb')}?tenant=a&lang=en`;
    const client = await s.createOAuthClient({ redirectUris: [registered] });
    const response = await s.authorize(`response_type=code&client_id=${client.clientId}&redirect_uri=${registered}&scope=openid profile&state=xyz`, cookie);
    expect(response.statusCode).toBe(302);
    expect(String(response.headers.location).startsWith(`${registered}&code=`)).toBe(true);
    const code = s.redirectParams(response).get('code') as string;
    const body = (
      await s.token({ grant_type: 'authorization_code', code, redirect_uri: registered }, { id: client.clientId, secret: client.clientSecret as string })
    ).json();
    expect(body.scope).toBe('openid profile');
  });

  it('accepts the POST form of the authorization request', async () => {
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const client = await s.createOAuthClient();
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: s.authorizeQuery({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'openid',
        state: 'posted',
        unknown_param: 'ignored',
      }),
    });
    expect(response.statusCode).toBe(303);
    expect(s.redirectParams(response).get('state')).toBe('posted');
    expect(s.redirectParams(response).get('code')).toBeTruthy();
  });

  it('needs the CSRF token on the login form, and logs out', async () => {
    const person = await s.createPerson();
    const forged = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ username: person.username, password: person.password }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('expired');

    const cookie = await s.login(person.username, person.password);
    const signedIn = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie } });
    expect(signedIn.body).toContain(person.username);
    const logoutPage = await t.app.inject({ method: 'GET', url: '/logout', headers: { cookie } });
    const logout = await t.app.inject({
      method: 'POST',
      url: '/logout',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrf=${encodeURIComponent(s.csrfOf(logoutPage.body))}`,
    });
    expect(logout.statusCode).toBe(200);
    expect(logout.body).toContain('You are signed out');
    const client = await s.createOAuthClient();
    const after = await s.authorize(
      s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid' }),
      cookie,
    );
    expect(after.headers.location).toMatch(/^\/login\?/);
  });
});
