import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) process.stdout.write(`identity browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium).\n`);

/** A relying party in a dozen lines: /start sends the browser to Parley, /callback records what came back. */
function startRelyingParty(parleyBase: () => string, client: () => { clientId: string }) {
  const states = new Map<string, string>();
  const received: Array<{ code: string | null; state: string | null; expected: string | undefined; error: string | null }> = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://rp.local');
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
    if (url.pathname === '/start') {
      const session = randomBytes(8).toString('hex');
      const state = randomBytes(22).toString('base64url');
      states.set(session, state);
      const authorize = new URL('/oauth/authorize', parleyBase());
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: client().clientId,
        redirect_uri: redirectUri,
        scope: 'openid profile',
        state,
      }).toString();
      response.writeHead(302, { location: authorize.toString(), 'set-cookie': `rp=${session}; HttpOnly; SameSite=Lax; Path=/` });
      response.end();
      return;
    }
    if (url.pathname === '/callback') {
      const session = /(?:^|;\s*)rp=([^;]+)/.exec(request.headers.cookie ?? '')?.[1] ?? '';
      received.push({
        code: url.searchParams.get('code'),
        state: url.searchParams.get('state'),
        expected: states.get(session),
        error: url.searchParams.get('error'),
      });
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>RP</title><h1>Signed in at the relying party</h1>');
      return;
    }
    response.writeHead(404).end();
  });
  return {
    received,
    listen: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!hasChromium).each(testDatabases)('sign-in in a real browser (Chromium) on %s', (database) => {
  let t: TestApp;
  let browser: Browser;
  let rp: ReturnType<typeof startRelyingParty>;
  let rpBase: string;
  let registered: { clientId: string; clientSecret: string | null };
  let parleyBase: string;

  beforeAll(async () => {
    const port = await freePort();
    parleyBase = `http://127.0.0.1:${port}`;
    t = await startTestApp(database, { PUBLIC_URL: parleyBase });
    await t.app.listen({ port, host: '127.0.0.1' });
    rp = startRelyingParty(
      () => parleyBase,
      () => registered,
    );
    rpBase = await rp.listen();
    const s = signInClient(t);
    registered = await s.createOAuthClient({ redirectUris: [`${rpBase}/callback`] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await rp?.close();
    await t?.close();
  });

  it('a relying party sends the browser to the login page; after the credentials it gets the code and the right state', async () => {
    const s = signInClient(t);
    const person = await s.createPerson();
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    try {
      await page.goto(`${rpBase}/start`);
      expect(new URL(page.url()).pathname).toBe('/login');
      await expect(page.title()).resolves.toBe('Sign in');
      expect(await page.textContent('h1')).toBe('Sign in');
      expect(await page.textContent('main')).toContain('Test app');
      // The inline style sheet is allowed by its hash in the Content-Security-Policy.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('button') as Element).backgroundColor)).toBe('rgb(29, 78, 216)');

      // A wrong password first: a clear message, and the form again.
      await page.fill('#username', person.username);
      await page.fill('#password', 'wrong password');
      await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
      expect(await page.textContent('[role=alert]')).toContain('The username or password is incorrect.');
      expect(await page.inputValue('#username')).toBe(person.username);

      await page.fill('#password', person.password);
      await Promise.all([page.waitForURL(`${rpBase}/callback**`), page.click('button[type=submit]')]);
      expect(await page.textContent('h1')).toBe('Signed in at the relying party');
      const last = rp.received.at(-1);
      expect(last?.error).toBeNull();
      expect(last?.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(last?.state).toBe(last?.expected);

      // The session cookie signs the browser in again without the form.
      const cookies = await context.cookies(parleyBase);
      const session = cookies.find((cookie) => cookie.name === 'parley_session');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      await page.goto(`${rpBase}/start`);
      expect(page.url().startsWith(`${rpBase}/callback`)).toBe(true);
      expect(rp.received.at(-1)?.state).toBe(rp.received.at(-1)?.expected);

      // The code works at the token endpoint.
      const code = rp.received.at(-1)?.code as string;
      const token = await s.token(
        { grant_type: 'authorization_code', code, redirect_uri: `${rpBase}/callback` },
        { id: registered.clientId, secret: registered.clientSecret as string },
      );
      expect(token.statusCode).toBe(200);

      // Logout from the page ends the session: the next visit shows the form again.
      await page.goto(`${parleyBase}/logout`);
      await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
      expect(await page.textContent('h1')).toBe('You are signed out');
      await page.goto(`${rpBase}/start`);
      expect(new URL(page.url()).pathname).toBe('/login');
    } finally {
      await context.close();
    }
  });
});
