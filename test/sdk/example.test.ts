import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/signin.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley } from './helpers.js';

const exampleDir = path.resolve(import.meta.dirname, '../../packages/client/examples/chat');
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) process.stdout.write(`SDK example browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium).\n`);

/** The example page's script bundled for browsers, as a developer would ship it. */
async function bundleExample(): Promise<string> {
  const result = await build({
    entryPoints: [path.join(exampleDir, 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('SDK: the example chat page', () => {
  it('bundles for browsers from the SDK alone, with no Node built-ins', async () => {
    const code = await bundleExample();
    expect(code).toContain('/oauth/authorize');
    expect(code).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });
});

describe.skipIf(!hasChromium).each(testDatabases)('SDK: the example chat page in a browser on %s', (database) => {
  let p: Parley;
  let browser: Browser;
  let page: http.Server;
  let pageUrl: string;
  let html = '';

  beforeAll(async () => {
    const port = await freePort();
    // Listening where PUBLIC_URL says, as a deployment does (links and the issuer use it).
    p = await startParley(database, { PUBLIC_URL: `http://127.0.0.1:${port}` }, {}, port);
    const script = await bundleExample();
    page = http.createServer((request, response) => {
      if (request.url?.startsWith('/main.js')) {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    const registered = await p.admin.call('POST', '/api/v2/oauth/clients', { name: 'Chat example', redirectUris: [pageUrl], public: true });
    const clientId = (registered.json() as { clientId: string }).clientId;
    html = fs
      .readFileSync(path.join(exampleDir, 'index.html'), 'utf8')
      .replace(/(name="parley-server" content=")[^"]*/, `$1${p.baseUrl}`)
      .replace(/(name="parley-client-id" content=")[^"]*/, `$1${clientId}`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => page?.close(resolve));
    await p?.t.close();
  });

  it('signs in, lists the channel, sends a message and shows one sent by someone else live', async () => {
    const userId = p.t.uniqueId('ada');
    await p.admin.createUser(userId, { username: `${userId}-login`, password: 'correct horse battery', displayName: 'Ada' });
    const bob = await p.user('bob');
    const channelId = await p.channel([userId, bob.userId]);
    const tab = await (await browser.newContext()).newPage();
    await tab.goto(pageUrl);
    await tab.click('#sign-in');
    await tab.fill('#username', `${userId}-login`);
    await tab.fill('#password', 'correct horse battery');
    await Promise.all([tab.waitForURL(`${pageUrl}**`), tab.click('button[type=submit]')]);
    await tab.waitForSelector('#state:text("open")');
    await tab.click(`nav button:has-text("${channelId}")`);
    await tab.fill('#text', 'hello from the page');
    await tab.click('#composer button[type=submit]');
    await tab.waitForSelector('#messages li.sent:has-text("hello from the page")');

    const response = await fetch(`${p.baseUrl}/client/v1/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'text', data: { text: 'hi Ada' } }),
    });
    expect(response.status).toBe(200);
    await tab.waitForSelector('#messages li:has-text("hi Ada")');
    const texts = await tab.$$eval('#messages li', (items) => items.map((item) => item.textContent ?? ''));
    expect(texts).toEqual([`${userId}: hello from the page`, `${bob.userId}: hi Ada`]);
  });
});
