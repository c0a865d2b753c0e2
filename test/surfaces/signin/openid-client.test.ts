import { jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** A tiny cookie jar for fetch: enough for the login form. */
function cookieJar() {
  const jar = new Map<string, string>();
  return {
    store(response: Response): void {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = (pair ?? '').split('=');
        if (name && value !== undefined) {
          if (value === '') jar.delete(name);
          else jar.set(name, value);
        }
      }
    },
    header: (): string => [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
  };
}

/**
 * A standard OpenID Connect relying party (openid-client v6) against a real listening Parley:
 * discovery, code flow with PKCE, code exchange with ID-token checks, userinfo and refresh.
 */
describe.each(testDatabases)('openid-client v6 against Parley on %s', (database) => {
  let t: TestApp;
  let s: ReturnType<typeof signInClient>;
  let base: string;
  const insecure = { execute: [oidc.allowInsecureRequests] };

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp(database, { PUBLIC_URL: base });
    await t.app.listen({ port, host: '127.0.0.1' });
    s = signInClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Plays the browser: follows the authorize redirect to the login form and submits it; answers the callback URL. */
  async function signInAt(authorizationUrl: URL, username: string, password: string): Promise<URL> {
    const jar = cookieJar();
    const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const loginUrl = new URL(authorize.headers.get('location') as string, base);
    const page = await fetch(loginUrl, { headers: { cookie: jar.header() } });
    jar.store(page);
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const authorizeField = /name="authorize" value="([^"]+)"/.exec(html)?.[1]?.replace(/&#38;/g, '&') as string;
    const submitted = await fetch(new URL('/login', base), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, authorize: authorizeField, username, password }).toString(),
    });
    expect(submitted.status).toBe(303);
    return new URL(submitted.headers.get('location') as string);
  }

  it('discovers, runs the code flow with PKCE, checks the ID token, reads userinfo and refreshes', async () => {
    const person = await s.createPerson({ position: 'Engineer' });
    const registered = await s.createOAuthClient({ redirectUris: ['https://rp.example/callback'] });
    const secret = registered.clientSecret as string;

    const config = await oidc.discovery(
      new URL(base),
      registered.clientId,
      { client_secret: secret, id_token_signed_response_alg: 'HS256' },
      oidc.ClientSecretBasic(secret),
      insecure,
    );
    expect(config.serverMetadata().issuer).toBe(t.config.oidcIssuer);

    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://rp.example/callback',
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await signInAt(authorizationUrl, person.username, person.password);
    expect(callback.origin + callback.pathname).toBe('https://rp.example/callback');

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('openid profile');
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: t.config.oidcIssuer, aud: registered.clientId, sub: person.userId, name: 'Ada Lovelace', nonce });

    // openid-client does not check signatures of ID tokens from the token endpoint; we do, with the secret.
    const verified = await jwtVerify(tokens.id_token as string, new TextEncoder().encode(secret), {
      issuer: t.config.oidcIssuer,
      audience: registered.clientId,
      algorithms: ['HS256'],
    });
    expect(verified.payload.sub).toBe(person.userId);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, person.userId);
    expect(info).toMatchObject({
      sub: person.userId,
      _id: person.userId,
      preferred_username: person.username,
      title: 'Engineer',
      position: 'Engineer',
      email: `${person.userId}@example.com`,
    });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()?.sub).toBe(person.userId);
    // Within the reuse window the same client may refresh with the rotated token again (two requests at once).
    const again = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(again.access_token).not.toBe(refreshed.access_token);
    // Past the window it is a replay.
    t.clock.setOffset(31_000);
    try {
      await expect(oidc.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    } finally {
      t.clock.setOffset(0);
    }
  });

  it('leaves a tampered state to the client, which refuses the callback', async () => {
    const person = await s.createPerson();
    const registered = await s.createOAuthClient({ redirectUris: ['https://rp.example/callback'] });
    const config = await oidc.discovery(new URL(base), registered.clientId, registered.clientSecret as string, undefined, insecure);
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, { redirect_uri: 'https://rp.example/callback', scope: 'openid', state });
    const callback = await signInAt(authorizationUrl, person.username, person.password);
    expect(callback.searchParams.get('state')).toBe(state);
    callback.searchParams.set('state', `${state}-tampered`);
    const refusal = await oidc.authorizationCodeGrant(config, callback, { expectedState: state }).then(
      () => null,
      (error: unknown) => error as Error & { cause?: { message?: string }; code?: string },
    );
    expect(refusal).not.toBeNull();
    expect(`${refusal?.message} ${refusal?.cause?.message ?? ''} ${JSON.stringify(refusal?.cause ?? {})}`).toMatch(/state/i);
    // The untampered callback still works: the server never looked at the state.
    callback.searchParams.set('state', state);
    expect((await oidc.authorizationCodeGrant(config, callback, { expectedState: state })).access_token).toBeTruthy();
  });

  it('gets a bot token with the client_credentials grant', async () => {
    const bot = (await s.admin.call('POST', '/api/v2/bots', { displayName: 'Robo' })).json();
    const config = await oidc.discovery(new URL(base), bot.clientId, bot.clientSecret, undefined, insecure);
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'bot' });
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'bot', expires_in: 3600 });
  });
});
