import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * CORS and shared caches: discovery and the JWKS are `cache-control: public`. Were the CORS header to
 * depend on Origin, a cache that stored a server's fetch (no Origin) would hand browsers a copy
 * without access-control-allow-origin, so the header is always sent there.
 */
describe('CORS and caches', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  for (const url of ['/.well-known/openid-configuration', '/oauth/jwks']) {
    it(`${url}: a publicly cacheable answer either always carries ACAO * or varies on Origin`, async () => {
      const plain = await t.app.inject({ method: 'GET', url });
      const cross = await t.app.inject({ method: 'GET', url, headers: { origin: 'https://spa.example' } });
      expect(String(plain.headers['cache-control'])).toContain('public');
      expect(cross.headers['access-control-allow-origin']).toBe('*');
      const vary = String(plain.headers.vary ?? '').toLowerCase();
      // Either form makes a cached copy safe for a cross-origin reader.
      expect({ acao: plain.headers['access-control-allow-origin'] ?? null, variesOnOrigin: vary.includes('origin') }).not.toEqual({
        acao: null,
        variesOnOrigin: false,
      });
    });
  }

  it('preflights: answered on the client API and token endpoint, also for paths that do not exist (harmless)', async () => {
    const origin = 'https://spa.example';
    const ok = await t.app.inject({
      method: 'OPTIONS',
      url: '/client/v1/channels/abc/messages',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(ok.statusCode).toBe(204);
    const none = await t.app.inject({ method: 'OPTIONS', url: '/client/v1/no-such-route', headers: { origin, 'access-control-request-method': 'GET' } });
    expect(none.statusCode).toBe(204);
    // A plain OPTIONS (no Access-Control-Request-Method) is not a preflight: the router answers, 405
    // with the methods the path serves.
    const plain = await t.app.inject({ method: 'OPTIONS', url: '/client/v1/me', headers: { origin } });
    expect({ status: plain.statusCode, allow: plain.headers.allow }).toEqual({ status: 405, allow: 'GET, HEAD' });
    // Not on the sign-in pages, bot and admin APIs.
    for (const url of ['/login', '/oauth/authorize', '/bot/v1/direct/message', '/api/v2/users', '/logout']) {
      const response = await t.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST' } });
      expect([url, response.headers['access-control-allow-origin']]).toEqual([url, undefined]);
    }
    // Lookalike paths are not matched.
    for (const url of ['/client/v10/me', '/oauth/tokenx', '/userinfo/x', '/api/v2/client/v1/x']) {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin } });
      expect([url, response.headers['access-control-allow-origin']]).toEqual([url, undefined]);
    }
  });
});
