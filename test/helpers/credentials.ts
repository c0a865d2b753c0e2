import type { BuiltApp } from '../../src/app.js';
import { adminClient } from './admin.js';
import { signInClient } from './signin.js';
import type { TestApp } from './test-app.js';

type App = BuiltApp['app'];

export interface SignedInPerson {
  userId: string;
  username: string;
  password: string;
  client: { clientId: string; clientSecret: string; redirectUri: string };
  /** The browser's session cookie header (`parley_session=...; parley_csrf=...`). */
  cookie: string;
  accessToken: string;
  refreshToken: string;
  /** An access token minted through the admin API, a year long. */
  mintedToken: string;
}

/** A person signed in through the pages and an app (code, then tokens), plus a minted token. */
export async function signedInPerson(t: TestApp): Promise<SignedInPerson> {
  const s = signInClient(t);
  const { person, client, cookie, code } = await s.codeFor({ scope: 'openid profile' });
  const secret = client.clientSecret as string;
  const exchanged = await s.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, { id: client.clientId, secret });
  if (exchanged.statusCode !== 200) throw new Error(`code exchange: ${exchanged.statusCode} ${exchanged.body}`);
  const tokens = exchanged.json() as { access_token: string; refresh_token: string };
  const minted = await adminClient(t).call('POST', `/api/v2/users/${person.userId}/tokens`, { expiresIn: 365 * 24 * 3600 });
  if (minted.statusCode !== 200) throw new Error(`mint: ${minted.statusCode} ${minted.body}`);
  return {
    ...person,
    client: { clientId: client.clientId, clientSecret: secret, redirectUri: client.redirectUri },
    cookie,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    mintedToken: (minted.json() as { accessToken: string }).accessToken,
  };
}

/** What a person's credentials still do on one instance. */
export function credentialChecks(app: App) {
  return {
    /** Whether the cookie still signs the browser in: authorize answers a code, not the login page. */
    async cookieSignsIn(person: SignedInPerson): Promise<boolean> {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: person.client.clientId,
        redirect_uri: person.client.redirectUri,
        scope: 'openid',
        state: 'revocation-check',
      });
      const response = await app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie: person.cookie } });
      const location = String(response.headers.location ?? '');
      if (response.statusCode !== 302) throw new Error(`authorize: ${response.statusCode} ${response.body.slice(0, 200)}`);
      return location.startsWith(person.client.redirectUri) && new URL(location).searchParams.has('code');
    },

    /** The status of the client API's /me with the token (200 live, 401 revoked). */
    async meStatus(token: string): Promise<number> {
      return (await app.inject({ method: 'GET', url: '/client/v1/me', headers: { authorization: `Bearer ${token}` } })).statusCode;
    },

    /** The refresh grant with the person's refresh token: status and OAuth error. */
    async refresh(person: SignedInPerson, refreshToken = person.refreshToken): Promise<{ status: number; error: string | undefined }> {
      const response = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${person.client.clientId}:${person.client.clientSecret}`).toString('base64')}`,
        },
        payload: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      });
      return { status: response.statusCode, error: (response.json() as { error?: string }).error };
    },
  };
}

/** The session cookie's value in a Cookie header. */
export function sessionCookieValue(cookie: string): string {
  const pair = cookie.split('; ').find((part) => /^(__Host-)?parley_session=/.test(part));
  if (!pair) throw new Error(`no session cookie in ${cookie}`);
  return pair.slice(pair.indexOf('=') + 1);
}
