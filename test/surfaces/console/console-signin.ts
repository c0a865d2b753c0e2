import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { mergeCookies } from '../../helpers/signin.js';

/**
 * The console's sign-in as the browser app does it: the login page, the authorization-code flow with
 * PKCE as the public client parley-console, and the token exchange. Works on any built app.
 */
export const CONSOLE_CLIENT_ID = 'parley-console';

/** Signs in on /login and answers the session cookie. */
export async function loginCookie(app: FastifyInstance, username: string, password: string): Promise<string> {
  const page = await app.inject({ method: 'GET', url: '/login' });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!csrf) throw new Error(`no csrf field on the login page: ${page.statusCode}`);
  let cookie = mergeCookies('', page);
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ csrf, username, password }).toString(),
  });
  if (response.statusCode !== 303) throw new Error(`login of ${username}: ${response.statusCode} ${response.body.slice(0, 300)}`);
  cookie = mergeCookies(cookie, response);
  return cookie;
}

/** The code flow with PKCE for `clientId` (the console's by default); answers the token response. */
export async function signInWithPkce(
  app: FastifyInstance,
  input: { username: string; password: string; redirectUri: string; clientId?: string; clientSecret?: string | null },
): Promise<{ status: number; accessToken: string | null; body: string }> {
  const clientId = input.clientId ?? CONSOLE_CLIENT_ID;
  const cookie = await loginCookie(app, input.username, input.password);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: input.redirectUri,
    scope: 'openid profile',
    state: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const authorized = await app.inject({ method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie } });
  const location = authorized.headers.location;
  if (typeof location !== 'string') throw new Error(`authorize: ${authorized.statusCode} ${authorized.body.slice(0, 300)}`);
  const code = new URL(location, 'http://local').searchParams.get('code');
  if (code === null) throw new Error(`authorize answered no code: ${location}`);
  const form: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: input.redirectUri,
    client_id: clientId,
    code_verifier: verifier,
  };
  if (input.clientSecret) form.client_secret = input.clientSecret;
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
  const accessToken = response.statusCode === 200 ? ((response.json() as { access_token: string }).access_token ?? null) : null;
  return { status: response.statusCode, accessToken, body: response.body };
}

/** The console's redirect URI on a server whose public URL is `publicUrl`. */
export const consoleRedirectUri = (publicUrl: string): string => `${publicUrl}/console/callback`;
