import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../../../test/cli/processes.js';
import {
  createNetworkAdmin,
  createPerson,
  hasChromium,
  launchChromium,
  type Server,
  signInThroughLoginPage,
  signInWithAdminToken,
  startServer,
} from './harness.js';

if (!hasChromium) process.stdout.write('console browser tests skipped: /usr/bin/chromium is absent (apt-get install -y chromium).\n');

const MODERATION = ['DELETE_MESSAGE', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'];

async function send(server: Server, token: string, channelId: string, text: string) {
  return server.client(token, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });
}

function messageIdOf(answer: { json: unknown }): string {
  const id = (answer.json as { data?: { messages?: Array<{ messageId: string }> } }).data?.messages?.[0]?.messageId;
  if (!id) throw new Error(`no message in ${JSON.stringify(answer.json)}`);
  return id;
}

describe.skipIf(!hasChromium).each(databases)('the console in Chromium on %s', (database) => {
  let server: Server;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  beforeAll(async () => {
    server = await startServer(database);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
  });

  it('serves the console compressed to browsers that accept it', async () => {
    const html = await (await fetch(`${server.url}/console/`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
    const plain = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
    const plainBytes = Buffer.from(await plain.arrayBuffer());
    const compressed = await fetch(`${server.url}${script}`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(compressed.headers.get('content-encoding')).toBe('br');
    expect(Number(compressed.headers.get('content-length'))).toBeLessThan(plainBytes.length / 2);
    // fetch decodes it: the same script either way.
    expect(Buffer.from(await compressed.arrayBuffer()).equals(plainBytes)).toBe(true);
  });

  it('first run: the banner says how to make the first network admin, who then signs in through the login page', async () => {
    expect(server.banner).toContain('No network admin yet');
    expect(server.banner).toContain(`${server.url}/console`);
    await createNetworkAdmin(server, 'root-admin', 'first-admin-password');

    const page = await newPage();
    await signInThroughLoginPage(page, server, 'root-admin', 'first-admin-password');
    // A network admin lands on the overview, with every screen offered and their name shown.
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const screens = page.getByRole('navigation', { name: 'Console screens' });
    for (const name of ['Queue', 'Users', 'Channels', 'Rules', 'Roles', 'Apps', 'Overview', 'Tray inspector']) {
      await screens.getByRole('link', { name: new RegExp(name) }).waitFor();
    }
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe('root-admin');
  });

  it('a flag with a reason reaches the open queue live; the moderator deletes the message and bans the author for an hour; the next send is refused', async () => {
    await server.admin('PUT', '/api/v2/roles', { publicIds: ['queue-moderator'], permissions: MODERATION });
    const moderator = await createPerson(server, 'mod-mia', { roles: ['queue-moderator'] });
    const author = await createPerson(server, 'author-al');
    const reporter = await createPerson(server, 'reporter-bo');
    const channel = await server.admin('POST', '/api/v2/channel', {
      channelId: 'lobby',
      type: 'standard',
      displayName: 'Lobby',
      userIds: [author.userId, reporter.userId],
    });
    expect(channel.status).toBe(200);
    const sent = await send(server, author.token, 'lobby', 'buy cheap watches at spam.example');
    expect(sent.status).toBe(200);

    const page = await newPage();
    await signInThroughLoginPage(page, server, moderator.username, moderator.password);
    await page.getByRole('heading', { level: 1, name: 'Moderation queue' }).waitFor();
    // The moderator without EDIT_USER is not offered the Users screen, and its address says so.
    const screens = page.getByRole('navigation', { name: 'Console screens' });
    await screens.getByRole('link', { name: /Queue/ }).waitFor();
    await expect(screens.getByRole('link', { name: /Users/ }).count()).resolves.toBe(0);

    // Flagged while the queue is open: the card appears without a reload.
    const flagged = await server.client(reporter.token, 'POST', `/client/v1/messages/${messageIdOf(sent)}/flag`, { reason: 'Spam link' });
    expect(flagged.status).toBe(200);
    const card = page.getByRole('article').filter({ hasText: 'buy cheap watches' });
    await card.waitFor({ timeout: 15_000 });
    await expect(card.textContent()).resolves.toContain('Spam link');
    await expect(card.textContent()).resolves.toContain('reporter-bo');

    await card.getByLabel('Author action').click();
    await page.getByRole('option', { name: /Ban .*channel/i }).click();
    await card.getByLabel(/Duration/).click();
    await page.getByRole('option', { name: '1 hour' }).click();
    await card.getByLabel('Delete the message too').check();
    await card.getByRole('button', { name: /Ban .*channel/i }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: /Ban/ }).click();
    await card.getByRole('status').filter({ hasText: 'Decision recorded' }).waitFor();

    const refused = await send(server, author.token, 'lobby', 'let me back in');
    expect(refused.status).toBe(403);
    expect((refused.json as { code: number }).code).toBe(400304);
    const gone = await server.admin('GET', `/api/v2/moderation/messages?status=open`);
    expect((gone.json as { items: unknown[] }).items).toEqual([]);
    // The decision is on record: deleted, the author banned from the channel for 60 minutes, by the moderator.
    const reviews = await server.admin('GET', '/api/v2/moderation/reviews?targetType=message');
    expect((reviews.json as { reviews: unknown[] }).reviews[0]).toMatchObject({
      decision: 'delete',
      authorAction: { action: 'ban', minutes: 60 },
      reviewer: { kind: 'user', id: moderator.userId },
      flags: [{ userId: reporter.userId, reason: 'Spam link' }],
    });

    await page.goto(`${server.url}/console/users`);
    await page.getByRole('heading', { level: 1, name: 'Not available' }).waitFor();
  });

  it('a blacklist word added on the Rules screen refuses a message that contains it', async () => {
    const writer = await createPerson(server, 'writer-wu');
    await server.admin('POST', '/api/v2/channel', { channelId: 'garden', type: 'standard', userIds: [writer.userId] });
    await expect(send(server, writer.token, 'garden', 'the zorblax is here')).resolves.toMatchObject({ status: 200 });

    const page = await newPage(390);
    await signInWithAdminToken(page, server);
    await page.goto(`${server.url}/console/rules`);
    await page.getByRole('heading', { level: 1, name: 'Rules' }).waitFor();
    await page.getByLabel('Word', { exact: true }).fill('zorblax');
    await page.getByRole('button', { name: 'Add rule', exact: true }).click();
    await page.getByRole('cell', { name: 'zorblax', exact: true }).waitFor();

    const refused = await send(server, writer.token, 'garden', 'the zorblax is here again');
    expect(refused.status).toBe(403);
    expect((refused.json as { code: number }).code).toBe(400308);
  });

  it('an OAuth client created on the Apps screen shows its secret once', async () => {
    const page = await newPage();
    await signInWithAdminToken(page, server);
    await page.goto(`${server.url}/console/apps`);
    await page.getByRole('heading', { level: 1, name: 'Apps' }).waitFor();
    await page.getByRole('button', { name: 'New OAuth client' }).click();
    const form = page.getByRole('dialog', { name: 'New OAuth client' });
    await form.getByLabel('Name').fill('Billing portal');
    await form.getByLabel('Sign-in redirect URIs, one per line').fill('https://billing.example/callback');
    await form.getByRole('button', { name: 'Create client' }).click();

    const shown = page.getByRole('dialog', { name: /Billing portal created/ });
    await shown.getByText('Shown once', { exact: true }).waitFor();
    const clientId = (await shown.locator('pre').first().textContent()) ?? '';
    const secret = (await shown.locator('pre').last().textContent()) ?? '';
    expect(secret.length).toBeGreaterThan(20);
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('button', { name: 'Edit URIs of Billing portal' }).waitFor();
    await expect(page.content()).resolves.not.toContain(secret);

    // It is the client's real secret: the token endpoint knows the client by it (a wrong one is 401 invalid_client).
    const tokenWith = (password: string) =>
      fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${password}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=unknown&redirect_uri=https%3A%2F%2Fbilling.example%2Fcallback',
      });
    await expect(tokenWith(`${secret}x`).then((response) => response.status)).resolves.toBe(401);
    await expect(tokenWith(secret).then((response) => response.status)).resolves.toBe(400);
    // The server never shows it again either.
    const clients = await server.admin('GET', '/api/v2/oauth/clients');
    expect(JSON.stringify(clients.json)).not.toContain(secret);
    await page.reload();
    await page.getByRole('button', { name: 'Edit URIs of Billing portal' }).waitFor();
    await expect(page.content()).resolves.not.toContain(secret);
  });
});
