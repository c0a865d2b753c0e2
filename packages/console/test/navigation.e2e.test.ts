import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../../../test/cli/processes.js';
import { createNetworkAdmin, createPerson, hasChromium, launchChromium, type Server, signInThroughLoginPage, startServer } from './harness.js';

/**
 * How an operator moves through the console: from one screen to another without a blank page, from a
 * link opened while signed out to the page it names, and the icon of the tab.
 */
describe.skipIf(!hasChromium).each(databases)('moving through the console on %s', (database) => {
  let server: Server;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  /** A page of its own browser context; `errors` collects what the page throws without catching. */
  async function newPage(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
    return { page, errors };
  }

  beforeAll(async () => {
    server = await startServer(database);
    browser = await launchChromium();
    await createNetworkAdmin(server, 'nav-admin', 'nav-admin-password');
    await server.admin('PUT', '/api/v2/roles', { publicIds: ['helper'], permissions: ['DELETE_MESSAGE'] });
    await createPerson(server, 'carla', { displayName: 'Carla Mendes', roles: ['helper'] });
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
  });

  it('Roles, then Users, then a person: the person’s page shows, with their roles, and nothing is thrown', async () => {
    const { page, errors } = await newPage();
    await signInThroughLoginPage(page, server, 'nav-admin', 'nav-admin-password');
    const screens = page.getByRole('navigation', { name: 'Console screens' });

    await screens.getByRole('link', { name: 'Roles' }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
    await page.getByRole('rowheader', { name: 'helper' }).waitFor();

    await screens.getByRole('link', { name: /Users/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('link', { name: /carla/ }).first().click();

    await page.getByRole('heading', { level: 1, name: 'Carla Mendes' }).waitFor();
    const roles = page.getByRole('form', { name: 'Profile' });
    await roles.getByText('helper', { exact: true }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a person’s page opened while signed out opens again once signed in, not the Overview', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.url}/console/users/carla?tab=profile`);
    await page.getByRole('button', { name: 'Sign in with Parley' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.fill('#username', 'nav-admin');
    await page.fill('#password', 'nav-admin-password');
    await page.click('button[type=submit]');

    await page.getByRole('heading', { level: 1, name: 'Carla Mendes' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/users/carla');
    expect(new URL(page.url()).search).toBe('?tab=profile');
    // Once: the next sign-in in this tab starts at the home screen again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/console/'));
    await page.getByRole('button', { name: 'Sign in with Parley' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.fill('#username', 'nav-admin');
    await page.fill('#password', 'nav-admin-password');
    await page.click('button[type=submit]');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('an address that would leave the console leads to the home screen after signing in', async () => {
    const { page } = await newPage();
    await page.goto(`${server.url}/console//example.org/phish`);
    await page.getByRole('button', { name: 'Sign in with Parley' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.fill('#username', 'nav-admin');
    await page.fill('#password', 'nav-admin-password');
    await page.click('button[type=submit]');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(new URL(page.url()).origin).toBe(server.url);
    expect(new URL(page.url()).pathname).toBe('/console/overview');
  });

  it('the console and the login page show Parley’s icon, and /favicon.ico answers with it', async () => {
    const root = await fetch(`${server.url}/favicon.ico`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^image\//);
    const icon = await root.text();
    expect(icon).toContain('<svg');

    const consoleHtml = await (await fetch(`${server.url}/console/`)).text();
    const consoleIcon = /<link rel="icon"[^>]* href="([^"]+)"/.exec(consoleHtml)?.[1];
    expect(consoleIcon).toBeDefined();
    const linked = await fetch(new URL(consoleIcon as string, `${server.url}/console/`));
    expect(linked.status).toBe(200);
    expect(linked.headers.get('content-type')).toMatch(/^image\//);
    await expect(linked.text()).resolves.toBe(icon);

    const login = await fetch(`${server.url}/login`);
    expect(login.headers.get('content-security-policy')).toContain("default-src 'none'");
    const loginIcon = /<link rel="icon"[^>]* href="([^"]+)"/.exec(await login.text())?.[1] ?? '';
    expect(loginIcon.startsWith('data:image/svg+xml,')).toBe(true);
    expect(decodeURIComponent(loginIcon.slice('data:image/svg+xml,'.length))).toBe(icon);

    // In the browser: neither page asks for anything that is not there.
    const { page } = await newPage();
    const missing: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 404) missing.push(response.url());
    });
    await page.goto(`${server.url}/console/login`);
    await page.getByRole('button', { name: 'Sign in with Parley' }).click();
    await page.waitForURL((url) => url.pathname === '/login');
    await page.waitForLoadState('networkidle');
    expect(missing).toEqual([]);
  });
});
