import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createSignIn, type FetchLike, type LockManagerLike, memoryStorage, ParleyError, TokenSession } from '../../packages/client/src/index.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley } from './helpers.js';

/** A fetch that counts token requests (POST /oauth/token) on their way to the server. */
function countingFetch() {
  const counter = { tokenRequests: 0 };
  const fetch: FetchLike = (request) => {
    if (request.method === 'POST' && new URL(request.url).pathname === '/oauth/token') counter.tokenRequests++;
    return globalThis.fetch(request);
  };
  return { counter, fetch };
}

/** The Web Locks API's exclusive mode, in process: what two tabs of one browser share. */
function inProcessLocks(): LockManagerLike {
  const tails = new Map<string, Promise<unknown>>();
  return {
    request<T>(name: string, callback: () => Promise<T>): Promise<T> {
      const previous = tails.get(name) ?? Promise.resolve();
      const run = previous.then(callback, callback);
      tails.set(
        name,
        run.catch(() => undefined),
      );
      return run;
    },
  };
}

describe.each(testDatabases)('SDK: sign-in with PKCE and token refresh on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    // No reuse window: a refresh token presented twice is a replay, so only a single refresh keeps the session.
    p = await startParley(database, { PARLEY_REFRESH_REUSE_WINDOW_SECONDS: '0' });
  });
  afterAll(async () => {
    await p.t.close();
  });

  async function person() {
    const userId = p.t.uniqueId('person');
    const username = `${userId}-login`;
    const password = `pw-${userId}`;
    await p.admin.createUser(userId, { username, password, displayName: 'Ada' });
    return { userId, username, password };
  }

  async function publicClient() {
    const redirectUri = `https://app.example/${p.t.uniqueId('cb')}`;
    const response = await p.admin.call('POST', '/api/v2/oauth/clients', { name: 'Chat app', redirectUris: [redirectUri], public: true });
    expect(response.statusCode).toBe(200);
    return { clientId: (response.json() as { clientId: string }).clientId, redirectUri };
  }

  /** What a browser does between the authorize URL and the callback: follow redirects, fill in the login form. */
  async function browserSignIn(authorizeUrl: string, who: { username: string; password: string }): Promise<string> {
    const jar = new Map<string, string>();
    const visit = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = (pair as string).split('=') as [string, string];
        jar.set(name, value);
      }
      return response;
    };
    const toLogin = await visit(authorizeUrl);
    expect(toLogin.status).toBe(302);
    const loginUrl = new URL(toLogin.headers.get('location') as string, p.baseUrl);
    const page = await visit(loginUrl.toString());
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] as string;
    const form = new URLSearchParams({ csrf, username: who.username, password: who.password, authorize: loginUrl.search.slice(1) });
    const done = await visit(`${p.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(done.status).toBe(303);
    return done.headers.get('location') as string;
  }

  it('signs in with the authorization code and PKCE, then calls the client API with the session', async () => {
    const who = await person();
    const app = await publicClient();
    const signIn = createSignIn({
      baseUrl: p.baseUrl,
      clientId: app.clientId,
      redirectUri: app.redirectUri,
      pendingStorage: memoryStorage(),
      tokenStorage: memoryStorage(),
    });
    const url = await signIn.authorizeUrl();
    const query = new URL(url).searchParams;
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const callback = await browserSignIn(url, who);
    expect(callback.startsWith(`${app.redirectUri}?`)).toBe(true);
    const { session, tokens, state } = await signIn.handleCallback(callback);
    expect(state).toBe(query.get('state'));
    expect(tokens.refreshToken).toBeTruthy();

    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: session });
    expect((await client.me()).userId).toBe(who.userId);
    expect(signIn.restore()?.tokens?.accessToken).toBe(tokens.accessToken);

    // The same callback again finds no pending state: it is refused before any token request.
    await expect(signIn.handleCallback(callback)).rejects.toMatchObject({ status: 400, message: 'The sign-in state is unknown or was already used.' });
  });

  it('refuses a callback whose state was not issued here, and one carrying an error', async () => {
    const app = await publicClient();
    const signIn = createSignIn({
      baseUrl: p.baseUrl,
      clientId: app.clientId,
      redirectUri: app.redirectUri,
      pendingStorage: memoryStorage(),
      tokenStorage: memoryStorage(),
    });
    await expect(signIn.handleCallback(`${app.redirectUri}?code=abc&state=forged`)).rejects.toBeInstanceOf(ParleyError);
    const state = new URL(await signIn.authorizeUrl()).searchParams.get('state') as string;
    await expect(signIn.handleCallback(`${app.redirectUri}?error=access_denied&state=${state}`)).rejects.toMatchObject({ message: 'access_denied' });
  });

  async function signedIn(options: { fetch?: FetchLike; now?: () => number } = {}) {
    const who = await person();
    const app = await publicClient();
    const tokenStorage = memoryStorage();
    const signIn = createSignIn({
      baseUrl: p.baseUrl,
      clientId: app.clientId,
      redirectUri: app.redirectUri,
      pendingStorage: memoryStorage(),
      tokenStorage,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      session: { locks: null, ...(options.now ? { now: options.now } : {}) },
    });
    const { session } = await signIn.handleCallback(await browserSignIn(await signIn.authorizeUrl(), who));
    return { who, app, session, tokenStorage };
  }

  it('refreshes once for concurrent calls that find the access token expired', async () => {
    const { counter, fetch } = countingFetch();
    let offset = 0;
    const { who, session } = await signedIn({ fetch, now: () => Date.now() + offset });
    const first = session.tokens?.accessToken;
    counter.tokenRequests = 0;
    offset = 3_600_000; // an hour on: the stored token has expired by the session's clock
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: session });
    const answers = await Promise.all([client.me(), client.channels(), client.me(), client.tray.history().catch(() => null)]);
    expect(answers[0].userId).toBe(who.userId);
    expect(counter.tokenRequests).toBe(1);
    expect(session.tokens?.accessToken).not.toBe(first);
  });

  it('refreshes once for concurrent calls refused with 401, and the rotated session keeps working', async () => {
    const { counter, fetch } = countingFetch();
    const { who, session } = await signedIn({ fetch });
    counter.tokenRequests = 0;
    await p.revokeTokens(who.userId);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: session });
    const answers = await Promise.all([client.me(), client.me(), client.channels()]);
    expect(answers.map((answer) => ('userId' in answer ? answer.userId : 'channels'))).toEqual([who.userId, who.userId, 'channels']);
    expect(counter.tokenRequests).toBe(1);
    // The rotated refresh token still works: a second refresh later succeeds.
    await p.revokeTokens(who.userId);
    expect((await client.me()).userId).toBe(who.userId);
    expect(counter.tokenRequests).toBe(2);
  });

  it("refreshes once across tabs sharing storage and a Web Lock, each tab finding the other tab's tokens", async () => {
    const { counter, fetch } = countingFetch();
    const { who, app, session, tokenStorage } = await signedIn();
    const stale = session.tokens?.accessToken as string;
    const locks = inProcessLocks();
    const tab = () => new TokenSession({ baseUrl: p.baseUrl, clientId: app.clientId, storage: tokenStorage, locks, fetch });
    const [one, two] = [tab(), tab()];
    counter.tokenRequests = 0;
    const [a, b] = await Promise.all([one.refresh(stale), two.refresh(stale)]);
    expect(a).toBe(b);
    expect(counter.tokenRequests).toBe(1);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: two });
    expect((await client.me()).userId).toBe(who.userId);
  });
});
