import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
}

type Basic = { id: string; secret: string };

function refreshAt(app: FastifyInstance, refreshToken: string, basic: Basic) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`,
    },
    payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
  });
}

/**
 * The refresh-token reuse window: a relying party that refreshes from two requests at once
 * (mod_auth_openidc) presents the same refresh token twice. Within the window the same client gets an
 * answer each time, every token of both answers works, and the family lives on; later, from another
 * client, or after the client used a replacement, the reuse is a replay and revokes the family.
 */
describe.each(testDatabases)('sign-in: refresh token reuse window on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;
  /** A second instance on the same database (PostgreSQL), so two requests are truly simultaneous. */
  let other: FastifyInstance;

  beforeAll(async () => {
    t = await startTestApp(database);
    s = signInClient(t);
    other = database === 'postgres' ? (await t.startPeer()).app : t.app;
  });
  afterEach(() => {
    t.clock.setOffset(0);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function signedIn(): Promise<{ tokens: Tokens; basic: Basic }> {
    const { client, code } = await s.codeFor();
    const basic = { id: client.clientId, secret: client.clientSecret as string };
    const response = await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic);
    expect(response.statusCode).toBe(200);
    return { tokens: response.json() as Tokens, basic };
  }

  const userinfoStatus = async (accessToken: string): Promise<number> =>
    (await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).statusCode;

  it('answers two simultaneous refreshes with the same token, and every token of both answers works', async () => {
    for (let round = 0; round < 5; round++) {
      const { tokens, basic } = await signedIn();
      const [first, second] = await Promise.all([refreshAt(t.app, tokens.refresh_token, basic), refreshAt(other, tokens.refresh_token, basic)]);
      expect([first.statusCode, second.statusCode], `${first.body} ${second.body}`).toEqual([200, 200]);
      const a = first.json() as Tokens;
      const b = second.json() as Tokens;
      expect(a.access_token).not.toBe(b.access_token);
      expect(a.refresh_token).not.toBe(b.refresh_token);
      expect(await userinfoStatus(a.access_token)).toBe(200);
      expect(await userinfoStatus(b.access_token)).toBe(200);
      // Each answer's refresh token rotates in turn; the family is alive.
      for (const answer of [a, b]) {
        const next = await refreshAt(t.app, answer.refresh_token, basic);
        expect(next.statusCode, next.body).toBe(200);
        expect(await userinfoStatus((next.json() as Tokens).access_token)).toBe(200);
      }
      expect(await userinfoStatus(a.access_token)).toBe(200);
    }
  });

  it('answers a second use of the just-rotated token within the window, and a use after it revokes the family', async () => {
    const { tokens, basic } = await signedIn();
    const first = (await refreshAt(t.app, tokens.refresh_token, basic)).json() as Tokens;
    t.clock.setOffset(29_000);
    const again = await refreshAt(t.app, tokens.refresh_token, basic);
    expect(again.statusCode, again.body).toBe(200);
    const second = again.json() as Tokens;
    expect(await userinfoStatus(first.access_token)).toBe(200);
    expect(await userinfoStatus(second.access_token)).toBe(200);

    t.clock.setOffset(31_000);
    const late = await refreshAt(t.app, tokens.refresh_token, basic);
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ error: 'invalid_grant', error_description: 'The refresh token was already used; its whole family is revoked.' });
    for (const answer of [first, second]) {
      expect(await userinfoStatus(answer.access_token)).toBe(401);
      expect((await refreshAt(t.app, answer.refresh_token, basic)).json().error).toBe('invalid_grant');
    }
  });

  it('treats a use by another client as a replay, even within the window', async () => {
    const { tokens, basic } = await signedIn();
    const first = (await refreshAt(t.app, tokens.refresh_token, basic)).json() as Tokens;
    const stranger = await s.createOAuthClient();
    const reuse = await refreshAt(t.app, tokens.refresh_token, { id: stranger.clientId, secret: stranger.clientSecret as string });
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error).toBe('invalid_grant');
    expect(await userinfoStatus(first.access_token)).toBe(401);
    expect((await refreshAt(t.app, first.refresh_token, basic)).json().error).toBe('invalid_grant');
  });

  it('treats a reuse as a replay once the token that replaced it was used', async () => {
    const { tokens, basic } = await signedIn();
    const first = (await refreshAt(t.app, tokens.refresh_token, basic)).json() as Tokens;
    const next = (await refreshAt(t.app, first.refresh_token, basic)).json() as Tokens;
    const reuse = await refreshAt(t.app, tokens.refresh_token, basic);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json().error).toBe('invalid_grant');
    expect(await userinfoStatus(next.access_token)).toBe(401);
  });
});

describe('sign-in: the reuse window setting', () => {
  it('reads PARLEY_REFRESH_REUSE_WINDOW_SECONDS from 0 to 60, 30 by default', () => {
    expect(loadConfig({}).refreshReuseWindowMs).toBe(30_000);
    expect(loadConfig({ PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '0' }).refreshReuseWindowMs).toBe(0);
    expect(loadConfig({ PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '60' }).refreshReuseWindowMs).toBe(60_000);
    expect(() => loadConfig({ PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '61' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_REFRESH_REUSE_WINDOW_SECONDS: 'soon' })).toThrow(ConfigError);
  });

  it('with the window off, a second use at once revokes the family', async () => {
    const t = await startTestApp('sqlite', { PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '0' });
    try {
      const s = signInClient(t);
      const { client, code } = await s.codeFor();
      const basic = { id: client.clientId, secret: client.clientSecret as string };
      const tokens = (await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic)).json() as Tokens;
      const first = (await refreshAt(t.app, tokens.refresh_token, basic)).json() as Tokens;
      expect((await refreshAt(t.app, tokens.refresh_token, basic)).json().error).toBe('invalid_grant');
      const info = await t.app.inject({ method: 'GET', url: '/userinfo', headers: { authorization: `Bearer ${first.access_token}` } });
      expect(info.statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });
});
