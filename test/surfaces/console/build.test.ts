import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONSOLE_DIR } from '../../../src/app.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * The console's real build (packages/console/dist, made by the tests' global set-up as `npm start`
 * makes it) served by the server: its page loads its scripts from /console/assets/, which answer.
 * Fails when the build failed (the set-up prints why).
 */
describe('the console build', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  it('is there, and served at /console/ with its assets', async () => {
    expect(fs.existsSync(`${DEFAULT_CONSOLE_DIR}/index.html`), 'packages/console/dist/index.html: run npm run console:build').toBe(true);
    const page = await t.app.inject({ method: 'GET', url: '/console/' });
    expect(page.statusCode).toBe(200);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string).filter((url) => !url.startsWith('data:'));
    expect(assets.length).toBeGreaterThan(0);
    for (const url of assets) {
      // Vite's base must be /console/, or the page asks for its scripts at the root.
      expect(url, 'vite.config.ts needs base: "/console/"').toMatch(/^\/console\//);
      const asset = await t.app.inject({ method: 'GET', url });
      expect(asset.statusCode, url).toBe(200);
      expect(asset.headers['content-type'], url).not.toMatch(/^text\/html/);
    }
  });
});
