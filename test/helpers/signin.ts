import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { adminClient } from './admin.js';
import type { TestApp } from './test-app.js';

/** Cookies from a response, as a Cookie header value merged over the given one. */
export function mergeCookies(previous: string, response: LightMyRequestResponse): string {
  const jar = new Map(
    previous
      .split('; ')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.split('=') as [string, string]),
  );
  for (const cookie of response.cookies as Array<{ name: string; value: string }>) {
    if (cookie.value === '') jar.delete(cookie.name);
    else jar.set(cookie.name, cookie.value);
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** Sign-in helpers shared by the identity tests: users with passwords, clients, a browser-like login. */
export function signInClient(t: TestApp) {
  const admin = adminClient(t);

  async function createPerson(fields: Record<string, unknown> = {}) {
    const userId = t.uniqueId('person');
    const username = `${userId}-login`;
    const password = `pw-${randomBytes(6).toString('hex')}`;
    await admin.createUser(userId, { username, password, firstname: 'Ada', lastname: 'Lovelace', email: `${userId}@example.com`, ...fields });
    return { userId, username, password };
  }

  async function createOAuthClient(body: Record<string, unknown> = {}) {
    const redirectUri = `https://app.example/${t.uniqueId('cb')}`;
    const response = await admin.call('POST', '/api/v2/oauth/clients', { name: 'Test app', redirectUris: [redirectUri], ...body });
    if (response.statusCode !== 200) throw new Error(`create client: ${response.statusCode} ${response.body}`);
    const json = response.json() as { clientId: string; clientSecret: string | null; redirectUris: string[]; postLogoutRedirectUris: string[] };
    return { ...json, redirectUri: json.redirectUris[0] as string };
  }

  function csrfOf(html: string): string {
    const match = /name="csrf" value="([^"]+)"/.exec(html);
    if (!match?.[1]) throw new Error('no csrf field in the page');
    return match[1];
  }

  /** GET the login page (optionally for an authorization request), then POST the credentials. */
  async function submitLogin(input: { username: string; password: string; query?: string; cookie?: string; remoteAddress?: string }) {
    const page = await t.app.inject({
      method: 'GET',
      url: `/login${input.query ? `?${input.query}` : ''}`,
      headers: input.cookie ? { cookie: input.cookie } : {},
      ...(input.remoteAddress ? { remoteAddress: input.remoteAddress } : {}),
    });
    let cookie = mergeCookies(input.cookie ?? '', page);
    const form = new URLSearchParams({ csrf: csrfOf(page.body), username: input.username, password: input.password });
    if (input.query) form.set('authorize', input.query);
    const response = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
      ...(input.remoteAddress ? { remoteAddress: input.remoteAddress } : {}),
    });
    cookie = mergeCookies(cookie, response);
    return { response, cookie };
  }

  async function login(username: string, password: string) {
    const { response, cookie } = await submitLogin({ username, password });
    if (response.statusCode !== 303) throw new Error(`login: ${response.statusCode} ${response.body}`);
    return cookie;
  }

  function authorizeQuery(params: Record<string, string>): string {
    return new URLSearchParams(params).toString();
  }

  async function authorize(query: string, cookie = '') {
    return t.app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: cookie ? { cookie } : {} });
  }

  /** Location's query parameters of a redirect response. */
  function redirectParams(response: LightMyRequestResponse): URLSearchParams {
    const location = response.headers.location;
    if (typeof location !== 'string') throw new Error(`expected a redirect, got ${response.statusCode} ${response.body.slice(0, 300)}`);
    return new URL(location, 'http://local').searchParams;
  }

  async function token(form: Record<string, string>, basic?: { id: string; secret: string }) {
    return t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(basic ? { authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}` } : {}),
      },
      payload: new URLSearchParams(form).toString(),
    });
  }

  /** A signed-in person, a confidential client, and a fresh code for them. */
  async function codeFor(options: { scope?: string; extra?: Record<string, string> } = {}) {
    const person = await createPerson();
    const client = await createOAuthClient();
    const cookie = await login(person.username, person.password);
    const state = randomBytes(12).toString('hex');
    const response = await authorize(
      authorizeQuery({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: options.scope ?? 'openid',
        state,
        ...options.extra,
      }),
      cookie,
    );
    const params = redirectParams(response);
    return { person, client, cookie, state, code: params.get('code') as string, params };
  }

  return { admin, createPerson, createOAuthClient, submitLogin, login, authorizeQuery, authorize, redirectParams, token, codeFor, mergeCookies, csrfOf };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A free port on 127.0.0.1 (for tests that need PUBLIC_URL before the server listens). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
