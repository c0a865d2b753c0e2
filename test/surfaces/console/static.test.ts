import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/console/assets/index-Ab12Cd34.js"></script></head><body>console</body></html>';
const SCRIPT = 'console.log("console");';

/** A console build as Vite leaves it: index.html, hashed assets, a file of public/. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.writeFileSync(path.join(dir, '.secret'), 'hidden');
  return dir;
}

/** The headers every console page carries. */
function expectSecurityHeaders(headers: Record<string, unknown>): void {
  const policy = String(headers['content-security-policy']);
  expect(policy).toContain("script-src 'self'");
  expect(policy).toContain("connect-src 'self'");
  expect(policy).toContain("img-src 'self' data: blob:");
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).not.toMatch(/script-src[^;]*unsafe/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

describe.each(testDatabases)('the console pages on %s', (database) => {
  let t: TestApp;
  let unbuilt: TestApp;
  let dir: string;
  let emptyDir: string;

  beforeAll(async () => {
    dir = fakeBuild();
    emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-empty-'));
    t = await startTestApp(database, {}, { consoleDir: dir });
    unbuilt = await startTestApp(database, {}, { consoleDir: path.join(emptyDir, 'dist') });
  });
  afterAll(async () => {
    await t.close();
    await unbuilt.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(emptyDir, { recursive: true, force: true });
  });

  it('sends / and /console to /console/', async () => {
    for (const url of ['/', '/console']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(302);
      expect(response.headers.location, url).toBe('/console/');
    }
  });

  it('answers index.html at /console/ and at any path of the app, never cached without asking', async () => {
    for (const url of ['/console/', '/console/users/alice', '/console/moderation/queue?tab=open', '/console/callback?code=x&state=y']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.body, url).toBe(INDEX);
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expectSecurityHeaders(response.headers);
    }
    expect((await t.app.inject({ method: 'GET', url: '/console/index.html' })).headers['cache-control']).toBe('no-cache');
  });

  it('serves hashed assets for a year, other files of the build as they are, and nothing outside it', async () => {
    const script = await t.app.inject({ method: 'GET', url: '/console/assets/index-Ab12Cd34.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.body).toBe(SCRIPT);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(script.headers);

    const icon = await t.app.inject({ method: 'GET', url: '/console/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.headers['cache-control']).not.toContain('immutable');

    // An asset of another build is missing, not the page.
    expect((await t.app.inject({ method: 'GET', url: '/console/assets/index-Old00000.js' })).statusCode).toBe(404);
    for (const url of ['/console/.secret', '/console/..%2f..%2fpackage.json', '/console/%2e%2e/%2e%2e/package.json']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.body, url).not.toContain('hidden');
      expect(response.body, url).not.toContain('"name"');
    }
  });

  it('says how to build the console when there is no build', async () => {
    for (const url of ['/console/', '/console/users']) {
      const response = await unbuilt.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(503);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('npm run console:build');
      expectSecurityHeaders(response.headers);
    }
    expect((await unbuilt.app.inject({ method: 'GET', url: '/api/v2/me', headers: { authorization: `Bearer ${unbuilt.adminToken}` } })).statusCode).toBe(200);
  });
});
