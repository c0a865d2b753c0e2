import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcePair, signInClient } from '../helpers/signin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The log of a full run at the most verbose level: every line is JSON, every request line carries the
 * request id that the response echoed, and none of the secrets the run used (tokens, passwords, client
 * secrets, codes, cookies, message text) appears anywhere in it.
 */
describe('logs', () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite', { LOG_LEVEL: 'trace', PARLEY_TRAY_ENABLED: '1' }, { logStream: { write: (line: string) => void lines.push(line) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('carry a request id on every request line and no secret of a full run', async () => {
    const s = signInClient(t);
    const secrets: Record<string, string> = { adminToken: t.adminToken };
    const messageText = `confidential-${randomBytes(8).toString('hex')}`;
    secrets.messageText = messageText;

    // A person signs in through the code flow with PKCE, refreshes, and calls userinfo.
    const person = await s.createPerson();
    secrets.password = person.password;
    const client = await s.createOAuthClient();
    secrets.clientSecret = client.clientSecret as string;
    const cookie = await s.login(person.username, person.password);
    secrets.sessionCookie = cookie
      .split('; ')
      .map((pair) => pair.split('=')[1] ?? '')
      .sort((a, b) => b.length - a.length)[0] as string;
    const pkce = pkcePair();
    secrets.codeVerifier = pkce.verifier;
    const authorized = await s.authorize(
      s.authorizeQuery({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'openid profile offline_access',
        state: 'st',
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
      }),
      cookie,
    );
    const code = s.redirectParams(authorized).get('code') as string;
    secrets.code = code;
    const tokens = await s.token(
      { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: pkce.verifier },
      { id: client.clientId, secret: client.clientSecret as string },
    );
    expect(tokens.statusCode, tokens.body).toBe(200);
    const issued = tokens.json() as { access_token: string; refresh_token?: string; id_token: string };
    secrets.accessToken = issued.access_token;
    secrets.idToken = issued.id_token;
    expect((await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${issued.access_token}` } })).statusCode).toBe(200);
    if (issued.refresh_token) {
      secrets.refreshToken = issued.refresh_token;
      const refreshed = await s.token(
        { grant_type: 'refresh_token', refresh_token: issued.refresh_token },
        { id: client.clientId, secret: client.clientSecret as string },
      );
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      secrets.refreshedAccessToken = (refreshed.json() as { access_token: string }).access_token;
    }
    // A failed login logs the attempt, not the password tried.
    const wrongPassword = `wrong-${randomBytes(6).toString('hex')}`;
    secrets.wrongPassword = wrongPassword;
    expect((await s.submitLogin({ username: person.username, password: wrongPassword })).response.statusCode).toBeGreaterThanOrEqual(400);

    // A bot gets its token; the admin mints a user token; both are used, and a garbage token is refused.
    const bot = (await s.admin.call('POST', '/api/v2/bots', { displayName: 'Log bot', webhookUrl: 'https://bots.example/hook' })).json() as {
      userId: string;
      clientId: string;
      clientSecret: string;
    };
    secrets.botSecret = bot.clientSecret;
    const botToken = await s.token({ grant_type: 'client_credentials', scope: 'bot' }, { id: bot.clientId, secret: bot.clientSecret });
    secrets.botToken = (botToken.json() as { access_token: string }).access_token;
    const minted = (await s.admin.call('POST', `/api/v2/users/${person.userId}/tokens`, {})).json() as { accessToken: string };
    secrets.mintedToken = minted.accessToken;
    const garbage = `garbage-${randomBytes(16).toString('hex')}`;
    secrets.garbageToken = garbage;
    expect((await t.app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${garbage}` } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: `/client/v1/stream?token=${garbage}` })).statusCode).toBeGreaterThanOrEqual(400);

    // Messages carry text that is nobody's business but the channel's.
    const channelId = t.uniqueId('logs');
    await s.admin.createChannel(channelId, { userIds: [person.userId] });
    const sent = await s.admin.call('POST', '/api/v2/message', { channelId, userId: person.userId, type: 'text', data: { text: messageText } });
    expect(sent.statusCode, sent.body).toBe(200);
    const fromClient = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/messages`,
      headers: { authorization: `Bearer ${minted.accessToken}`, 'x-request-id': 'log-test-request-1' },
      payload: { type: 'text', data: { text: `${messageText} again` } },
    });
    expect(fromClient.statusCode, fromClient.body).toBe(200);
    expect(fromClient.headers['x-request-id']).toBe('log-test-request-1');
    const post = await t.app.inject({
      method: 'POST',
      url: '/client/v1/posts',
      headers: { authorization: `Bearer ${minted.accessToken}` },
      payload: { text: `${messageText} posted` },
    });
    expect(post.statusCode, post.body).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, 200));
    const log = lines.join('');
    const records = lines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.length).toBeGreaterThan(20);
    const requestLines = records.filter((record) => record.req !== undefined || record.res !== undefined);
    expect(requestLines.length).toBeGreaterThan(15);
    for (const record of requestLines) expect(typeof record.reqId, JSON.stringify(record)).toBe('string');
    expect(requestLines.some((record) => record.reqId === 'log-test-request-1')).toBe(true);

    const leaked = Object.entries(secrets)
      .filter(([, value]) => value.length >= 8 && log.includes(value))
      .map(([name]) => name);
    expect(leaked).toEqual([]);
  });
});
