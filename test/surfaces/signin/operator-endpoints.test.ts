import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { openStorage } from '../../../src/storage/database.js';
import { createClientFromCli } from '../../../src/modules/identity/identity.cli.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

function multipart(fileField: string, data: Buffer, contentType = 'image/jpeg'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----parley${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="me.jpg"\r\nContent-Type: ${contentType}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe.each(testDatabases)('sign-in operator endpoints on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('registers clients, shows the secret once and stores it encrypted, lists and deletes them', async () => {
    const created = await s.admin.call('POST', '/api/v2/oauth/clients', { name: 'Portal', redirectUris: ['https://portal.example/cb'] });
    expect(created.statusCode).toBe(200);
    const client = created.json();
    expect(client).toMatchObject({
      name: 'Portal',
      redirectUris: ['https://portal.example/cb'],
      public: false,
      idTokenSignedResponseAlg: 'HS256',
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    expect(client.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await t.storage.db.selectFrom('oauth_clients').selectAll().where('client_id', '=', client.clientId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(client.clientSecret);
    expect(row.secret_sealed).toMatch(/^v1\./);

    const list = await s.admin.call('GET', '/api/v2/oauth/clients');
    expect(list.body).not.toContain(client.clientSecret);
    expect(list.json().clients.map((c: { clientId: string }) => c.clientId)).toContain(client.clientId);
    const one = await s.admin.call('GET', `/api/v2/oauth/clients/${client.clientId}`);
    expect(one.json()).toMatchObject({ clientId: client.clientId, name: 'Portal' });
    expect(one.json().clientSecret).toBeUndefined();

    // Deleting a client revokes what it was issued.
    const person = await s.createPerson();
    const cookie = await s.login(person.username, person.password);
    const code = s
      .redirectParams(
        await s.authorize(
          s.authorizeQuery({ response_type: 'code', client_id: client.clientId, redirect_uri: 'https://portal.example/cb', scope: 'openid' }),
          cookie,
        ),
      )
      .get('code') as string;
    const tokens = (
      await s.token({ grant_type: 'authorization_code', code, redirect_uri: 'https://portal.example/cb' }, { id: client.clientId, secret: client.clientSecret })
    ).json();
    expect((await s.admin.call('DELETE', `/api/v2/oauth/clients/${client.clientId}`)).json()).toEqual({ status: 'success' });
    expect((await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${tokens.access_token}` } })).statusCode).toBe(401);
    expect((await s.admin.call('GET', `/api/v2/oauth/clients/${client.clientId}`)).statusCode).toBe(404);
    expect((await s.admin.call('DELETE', `/api/v2/oauth/clients/${client.clientId}`)).statusCode).toBe(404);
  });

  it('validates client registrations', async () => {
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ name: 'x', redirectUris: [] }, 422],
      [{ name: 'x', redirectUris: ['not a uri'] }, 422],
      [{ name: 'x', redirectUris: ['javascript:alert(1)'] }, 422],
      [{ name: 'x', redirectUris: ['https://a.example/cb#frag'] }, 422],
      [{ name: 'x', redirectUris: ['https://a.example/cb'], public: true, idTokenSignedResponseAlg: 'HS256' }, 422],
      [{ name: 'x', redirectUris: ['https://a.example/cb'], idTokenSignedResponseAlg: 'none' }, 400],
      [{ name: 'x', redirectUris: ['https://a.example/cb'], grantTypes: ['client_credentials'] }, 400],
    ];
    for (const [body, status] of cases) {
      const response = await s.admin.call('POST', '/api/v2/oauth/clients', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json().status).toBe('error');
    }
    const native = await s.admin.call('POST', '/api/v2/oauth/clients', { name: 'App', redirectUris: ['com.example.app:/oauth2redirect'], public: true });
    expect(native.json()).toMatchObject({ public: true, clientSecret: null, idTokenSignedResponseAlg: 'RS256', tokenEndpointAuthMethod: 'none' });
    const userToken = await s.admin.call(
      'POST',
      '/api/v2/oauth/clients',
      { name: 'x', redirectUris: ['https://a.example/cb'] },
      { authorization: 'Bearer nope' },
    );
    expect(userToken.statusCode).toBe(401);
  });

  it('creates bots whose credentials get a bot token with grant_type=client_credentials&scope=bot', async () => {
    const created = await s.admin.call('POST', '/api/v2/bots', { displayName: 'Weather bot', webhookUrl: 'https://bots.example/hook' });
    expect(created.statusCode).toBe(200);
    const bot = created.json();
    expect(bot).toMatchObject({ userId: expect.any(String), clientId: expect.any(String), clientSecret: expect.any(String) });

    const response = await s.token({ grant_type: 'client_credentials', scope: 'bot' }, { id: bot.clientId, secret: bot.clientSecret });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache, no-store');
    const body = response.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'bot' });
    const principal = await t.storage.db.selectFrom('tokens').selectAll().where('user_id', '=', bot.userId).executeTakeFirstOrThrow();
    expect(principal).toMatchObject({ kind: 'bot', scope: 'bot', client_id: bot.clientId });

    const viaBody = await s.token({ grant_type: 'client_credentials', scope: 'bot', client_id: bot.clientId, client_secret: bot.clientSecret });
    expect(viaBody.statusCode).toBe(200);
    expect((await s.token({ grant_type: 'client_credentials', scope: 'openid' }, { id: bot.clientId, secret: bot.clientSecret })).json().error).toBe(
      'invalid_scope',
    );
    expect((await s.token({ grant_type: 'client_credentials', scope: 'bot' }, { id: bot.clientId, secret: 'wrong' })).statusCode).toBe(401);
    expect(
      (await s.token({ grant_type: 'authorization_code', code: 'x', redirect_uri: 'https://x' }, { id: bot.clientId, secret: bot.clientSecret })).json().error,
    ).toBe('unauthorized_client');
    const person = await s.createOAuthClient();
    expect(
      (await s.token({ grant_type: 'client_credentials', scope: 'bot' }, { id: person.clientId, secret: person.clientSecret as string })).json().error,
    ).toBe('unauthorized_client');
    // The token expires after an hour: a bot treats the 401 as "fetch a new one".
    await s.admin.call('POST', '/api/v2/users/ban', { userId: bot.userId });
    expect((await s.token({ grant_type: 'client_credentials', scope: 'bot' }, { id: bot.clientId, secret: bot.clientSecret })).json().error).toBe(
      'invalid_grant',
    );
  });

  it('mints user access tokens for the client API', async () => {
    const userId = t.uniqueId('minted');
    await s.admin.createUser(userId);
    const response = await s.admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 600 });
    expect(response.statusCode).toBe(200);
    const { accessToken, expiresIn } = response.json();
    expect(expiresIn).toBe(600);
    expect((await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${accessToken}` } })).json()).toMatchObject({ userId });
    expect((await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).json()).toMatchObject({
      _id: userId,
    });
    expect((await s.admin.call('POST', '/api/v2/users/nobody-here/tokens', {})).statusCode).toBe(404);
    const defaulted = await s.admin.call('POST', `/api/v2/users/${userId}/tokens`);
    expect(defaulted.json().expiresIn).toBe(3600);
  });

  it('stores avatars (oriented, stripped, at most 512 px) and serves them only with a valid access token', async () => {
    const userId = t.uniqueId('pic');
    await s.admin.createUser(userId);
    // A 1200x800 photo with EXIF orientation 6 (rotate 90°) and GPS-like metadata.
    const photo = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#3366aa' } })
      .withMetadata({ orientation: 6, exif: { IFD0: { Copyright: 'secret place' } } })
      .jpeg()
      .toBuffer();
    const upload = multipart('file', photo);
    const empty = await s.admin.call('PUT', `/api/v2/users/${userId}/avatar`, undefined, upload.headers);
    expect(empty.statusCode).toBe(422);
    const json = await s.admin.call('PUT', `/api/v2/users/${userId}/avatar`, { file: 'x' });
    expect(json.statusCode).toBe(400);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/users/${userId}/avatar`,
      headers: { authorization: `Bearer ${t.adminToken}`, ...upload.headers },
      payload: upload.payload,
    });
    expect(put.statusCode).toBe(200);
    const avatarId = put.json().avatar as string;
    expect(avatarId).toMatch(/^[0-9a-f]{24}$/);
    expect(put.json().userId).toBe(userId);

    const { accessToken } = (await s.admin.call('POST', `/api/v2/users/${userId}/tokens`, {})).json();
    const byQuery = await t.app.inject({ method: 'GET', url: `/file/view/${avatarId}?size=large&access_token=${accessToken}` });
    expect(byQuery.statusCode).toBe(200);
    expect(byQuery.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(byQuery.rawPayload).metadata();
    expect(meta.width).toBe(341);
    expect(meta.height).toBe(512);
    expect(meta.exif).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    const byHeader = await t.app.inject({ method: 'GET', url: `/file/view/${avatarId}?size=large`, headers: { authorization: `Bearer ${accessToken}` } });
    expect(byHeader.statusCode).toBe(200);

    const anonymous = await t.app.inject({ method: 'GET', url: `/file/view/${avatarId}?size=large` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ status: 'error', code: 400100 });
    expect((await t.app.inject({ method: 'GET', url: `/file/view/${avatarId}?size=large&access_token=bogus` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/file/view/0123456789abcdef01234567?size=large&access_token=${accessToken}` })).statusCode).toBe(404);

    // userinfo points at it; a replacement removes the old picture.
    expect((await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).json()).toMatchObject({
      avatar: avatarId,
      picture: `${t.config.publicUrl}/file/view/${avatarId}?size=large`,
    });
    const second = multipart(
      'file',
      await sharp({ create: { width: 64, height: 64, channels: 4, background: '#00000000' } })
        .png()
        .toBuffer(),
      'image/png',
    );
    const replaced = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/users/${userId}/avatar`,
      headers: { authorization: `Bearer ${t.adminToken}`, ...second.headers },
      payload: second.payload,
    });
    expect(replaced.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `/file/view/${avatarId}?access_token=${accessToken}` })).statusCode).toBe(404);
    const png = await t.app.inject({ method: 'GET', url: `/file/view/${replaced.json().avatar}?access_token=${accessToken}` });
    expect(png.headers['content-type']).toBe('image/png');

    const notImage = multipart('file', Buffer.from('not an image at all'));
    const refused = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/users/${userId}/avatar`,
      headers: { authorization: `Bearer ${t.adminToken}`, ...notImage.headers },
      payload: notImage.payload,
    });
    expect(refused.statusCode).toBe(400);
    const unknownUser = await t.app.inject({
      method: 'PUT',
      url: '/api/v2/users/nobody-x/avatar',
      headers: { authorization: `Bearer ${t.adminToken}`, ...upload.headers },
      payload: upload.payload,
    });
    expect(unknownUser.statusCode).toBe(404);
  });
});

describe('the server key and the issuer', () => {
  it('keeps a key file with mode 0600, and refuses to start with another key on the same database', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-key-'));
    try {
      const first = await buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
      await first.app.close();
      const mode = fs.statSync(path.join(dataDir, 'secret.key')).mode & 0o777;
      expect(mode).toBe(0o600);
      const storage = openStorage({ databaseUrl: null, dataDir });
      const other = buildApp(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PARLEY_SECRET_KEY: 'x'.repeat(40) }), { storage });
      await expect(other).rejects.toThrow(/server key does not match/);
      await storage.close();
      expect(() => loadConfig({ PARLEY_SECRET_KEY: 'short' })).toThrow(/PARLEY_SECRET_KEY must be at least 32 characters/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers discovery under an issuer that has a path, and puts that issuer in ID tokens', async () => {
    const t = await startTestApp('sqlite', { PUBLIC_URL: 'https://chat.example', OIDC_ISSUER: 'https://chat.example/oauth/authorize' });
    try {
      for (const url of ['/oauth/authorize/.well-known/openid-configuration', '/.well-known/openid-configuration']) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode, url).toBe(200);
        expect(response.json()).toMatchObject({ issuer: 'https://chat.example/oauth/authorize', token_endpoint: 'https://chat.example/oauth/token' });
      }
      const s = signInClient(t);
      const { client, code, cookie } = await s.codeFor();
      expect(cookie).toContain('parley_session=');
      const body = (
        await s.token(
          { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri },
          { id: client.clientId, secret: client.clientSecret as string },
        )
      ).json();
      const { decodeJwt } = await import('jose');
      expect(decodeJwt(body.id_token).iss).toBe('https://chat.example/oauth/authorize');
    } finally {
      await t.close();
    }
  });

  it('names cookies with the __Host- prefix and sets them Secure behind an https public URL; a full sign-in works', async () => {
    const t = await startTestApp('sqlite', { PUBLIC_URL: 'https://chat.example' });
    try {
      const page = await t.app.inject({ method: 'GET', url: '/login' });
      const csrfCookie = String(page.headers['set-cookie']);
      expect(csrfCookie).toMatch(/^__Host-parley_csrf=[^;]+;/);
      expect(csrfCookie).toMatch(/; Secure/i);
      expect(csrfCookie).toMatch(/; Path=\//i);
      expect(csrfCookie).not.toMatch(/Domain=/i);
      const { cookie } = await signInClient(t).codeFor();
      expect(cookie).toMatch(/(^|; )__Host-parley_session=/);
      // A cookie without the prefix is not the session: a sibling subdomain could have set it.
      const session = cookie.match(/__Host-parley_session=([^;]+)/)?.[1] ?? '';
      const unprefixed = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie: `parley_session=${session}` } });
      expect(unprefixed.body).toContain('name="password"');
      const prefixed = await t.app.inject({ method: 'GET', url: '/login', headers: { cookie: `__Host-parley_session=${session}` } });
      expect(prefixed.body).not.toContain('name="password"');
    } finally {
      await t.close();
    }
  });

  it('creates a client from the command line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-cli-'));
    const lines: string[] = [];
    try {
      const env = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      const code = await createClientFromCli(
        ['--name', 'CLI app', '--redirect-uri', 'https://cli.example/cb', '--redirect-uri', 'https://cli.example/cb2'],
        (line) => lines.push(line),
        env,
      );
      expect(code).toBe(0);
      const output = lines.join('\n');
      const clientId = /client_id\s+(\S+)/.exec(output)?.[1];
      const secret = /client_secret\s+(\S+)/.exec(output)?.[1];
      expect(clientId).toBeTruthy();
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await createClientFromCli(['--name', 'x'], (line) => lines.push(line), env)).toBe(2);
      // The server on the same data directory knows the client and its secret.
      const built = await buildApp(loadConfig(env));
      const token = await built.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
        payload: 'grant_type=authorization_code&code=nope&redirect_uri=https%3A%2F%2Fcli.example%2Fcb',
      });
      expect(token.json().error).toBe('invalid_grant');
      await built.app.close();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
