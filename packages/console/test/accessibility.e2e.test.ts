import sharp from 'sharp';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../../../test/cli/processes.js';
import { createNetworkAdmin, createPerson, hasChromium, launchChromium, type Server, signInThroughLoginPage, startServer } from './harness.js';

/**
 * axe-core over every screen of the console and every dialog it opens, against the WCAG 2.2 AA rules:
 * any violation, whatever its impact, fails the screen's test and is listed in the failure.
 */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
const AXE_SOURCE = (await import('axe-core')).default.source;

interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** What axe reports on the page as it is now, one line per rule broken, with the elements that break it. */
async function axeFindings(page: Page, where: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const findings = await page.evaluate(async (tags): Promise<AxeFinding[]> => {
    const { axe } = window as unknown as { axe: typeof import('axe-core') };
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return result.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      nodes: violation.nodes.map((node) => `${node.target.join(' ')} (${node.failureSummary?.replaceAll('\n', ' ') ?? ''})`),
    }));
  }, WCAG_TAGS);
  return findings.map((finding) => `${where}: ${finding.rule} [${finding.impact}] ${finding.help}: ${finding.nodes.join('; ')}`);
}

/** The dialog named `name`, once the click on `opener` has opened it and its entrance transition is over. */
async function openDialog(page: Page, opener: Locator, name: string | RegExp): Promise<Locator> {
  await opener.click();
  const dialog = page.getByRole('dialog', { name });
  await dialog.waitFor();
  await expect.poll(() => dialog.evaluate((element) => getComputedStyle(element).opacity)).toBe('1');
  return dialog;
}

/** Closes a dialog by its close button, which says what it does. */
async function closeDialog(dialog: Locator): Promise<void> {
  await dialog.getByRole('button', { name: 'Close dialog' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

async function must(answer: Promise<{ status: number; json: unknown }>, what: string): Promise<unknown> {
  const { status, json } = await answer;
  if (status !== 200) throw new Error(`${what}: ${status} ${JSON.stringify(json)}`);
  return json;
}

function messageIdOf(json: unknown): string {
  const id = (json as { data?: { messages?: Array<{ messageId: string }> } }).data?.messages?.[0]?.messageId;
  if (!id) throw new Error(`no message in ${JSON.stringify(json)}`);
  return id;
}

/** A small team's data, so that each screen has rows, cards and the dialogs they open. */
async function seed(server: Server): Promise<void> {
  await must(server.admin('PUT', '/api/v2/roles', { publicIds: ['moderator'], permissions: ['DELETE_MESSAGE', 'BAN_USER_FROM_CHANNEL'] }), 'role');
  const ada = await createPerson(server, 'ada', { displayName: 'Ada Lovelace', roles: ['moderator'] });
  const linus = await createPerson(server, 'linus', { displayName: 'Linus Pauling' });
  await must(
    server.admin('POST', '/api/v2/channel', { channelId: 'general', type: 'standard', displayName: 'General', userIds: [ada.userId, linus.userId] }),
    'channel',
  );
  const post = (token: string, text: string) =>
    must(server.client(token, 'POST', '/client/v1/channels/general/messages', { type: 'text', data: { text } }), 'message');
  await post(ada.token, 'Good morning, everyone');
  const spam = messageIdOf(await post(linus.token, 'cheap watches at spam.example'));
  await must(server.client(ada.token, 'POST', `/client/v1/messages/${spam}/flag`, { reason: 'Spam link' }), 'flag');
  await must(server.client(ada.token, 'POST', `/client/v1/users/${linus.userId}/flag`, { reason: 'Posts the same link everywhere' }), 'user flag');

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3b5bdb' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.append('channelId', 'general');
  form.append('caption', 'The launch poster');
  form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'poster.png');
  const image = await fetch(`${server.url}/api/v2/messages/images`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.env.PARLEY_ADMIN_TOKEN}` },
    body: form,
  });
  if (image.status !== 200) throw new Error(`image: ${image.status} ${await image.text()}`);

  await must(server.admin('POST', '/api/v2/blacklist/records', { regexs: ['giveaway'], isMatchExactWord: false }), 'rule');
  await must(
    server.admin('POST', '/api/v2/oauth/clients', { name: 'Team web app', redirectUris: ['https://chat.example.com/callback'], public: true }),
    'client',
  );
  await must(server.admin('POST', '/api/v2/bots', { displayName: 'Helpdesk bot' }), 'bot');
  await must(server.admin('POST', '/api/v2/admin-tokens', { name: 'backup-job' }), 'admin token');
}

describe.skipIf(!hasChromium).each(databases)('the console meets WCAG 2.2 AA (axe-core) on %s', (database) => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  const contexts: BrowserContext[] = [];
  /** What the pages threw without catching: a screen that breaks is no screen to scan. */
  const pageErrors: string[] = [];

  /** axe is injected as an inline script, which the console's CSP refuses: the scanning browser bypasses it. */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    contexts.push(context);
    const opened = await context.newPage();
    opened.setDefaultTimeout(15_000);
    opened.on('pageerror', (error) => pageErrors.push(`${opened.url()}: ${error.name}: ${error.message}`));
    return opened;
  }

  async function open(path: string, heading: string): Promise<void> {
    await page.goto(`${server.url}/console${path}`);
    // A fresh load of the console on a machine busy with other tests may take a while.
    await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 30_000 });
  }

  beforeAll(async () => {
    server = await startServer(database);
    browser = await launchChromium();
    await seed(server);
    await createNetworkAdmin(server, 'axe-admin', 'axe-admin-password');
    page = await newPage();
    await signInThroughLoginPage(page, server, 'axe-admin', 'axe-admin-password');
  }, 120_000);
  afterEach(() => {
    expect(pageErrors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.stop();
  });

  it('the sign-in screens: the console’s, Parley’s login page, and a failed callback', async () => {
    const signedOut = await newPage();
    await signedOut.goto(`${server.url}/console/login`);
    await signedOut.getByRole('heading', { level: 1, name: 'Parley console' }).waitFor();
    const findings = await axeFindings(signedOut, 'console sign-in');
    await signedOut.getByRole('button', { name: 'Sign in with Parley' }).click();
    await signedOut.waitForURL((url) => url.pathname === '/login');
    findings.push(...(await axeFindings(signedOut, 'login page')));
    await signedOut.goto(`${server.url}/console/callback?code=unknown&state=unknown`);
    await signedOut.getByRole('link', { name: 'Back to sign-in' }).waitFor();
    findings.push(...(await axeFindings(signedOut, 'failed callback')));
    expect(findings).toEqual([]);
  });

  it('Overview, and the pages for an unknown address', async () => {
    await open('/overview', 'Overview');
    await page.waitForLoadState('networkidle');
    const findings = await axeFindings(page, 'overview');
    await open('/no-such-screen', 'Page not found');
    findings.push(...(await axeFindings(page, 'page not found')));
    expect(findings).toEqual([]);
  });

  it('Queue: open messages and users, the reviewed lists, and the decision dialogs', async () => {
    await open('/queue', 'Moderation queue');
    const message = page.getByRole('article').filter({ hasText: 'cheap watches' });
    await message.waitFor();
    const findings = await axeFindings(page, 'queue, open messages');
    let dialog = await openDialog(page, message.getByRole('button', { name: 'Delete message' }), 'Delete this message?');
    findings.push(...(await axeFindings(page, 'queue, delete message dialog')));
    await closeDialog(dialog);

    await page
      .getByRole('radiogroup', { name: 'Show flagged' })
      .getByText(/^Users/)
      .click();
    const user = page.getByRole('article').filter({ hasText: 'Linus Pauling' });
    await user.waitFor();
    findings.push(...(await axeFindings(page, 'queue, open users')));
    dialog = await openDialog(page, user.getByRole('button', { name: 'Ban globally' }), /Ban .* globally\?/);
    findings.push(...(await axeFindings(page, 'queue, ban dialog')));
    await closeDialog(dialog);

    await page.getByRole('tab', { name: 'Reviewed' }).click();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'queue, reviewed')));
    expect(findings).toEqual([]);
  });

  it('Users: the list, a person’s tabs, and their dialogs', async () => {
    await open('/users', 'Users');
    await page.getByRole('link', { name: 'linus' }).waitFor();
    const findings = await axeFindings(page, 'users');

    await page.getByRole('link', { name: 'axe-admin' }).click();
    await page.getByRole('heading', { level: 1, name: 'axe-admin' }).waitFor();
    await page.getByLabel('Display name').waitFor();
    findings.push(...(await axeFindings(page, 'user, profile')));

    await page.getByRole('tab', { name: 'Access' }).click();
    await page.getByRole('button', { name: 'Sign out everywhere' }).waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'user, access')));
    await page.getByLabel('New password', { exact: true }).fill('a long new password');
    let dialog = await openDialog(page, page.getByRole('button', { name: 'Set password' }), "Set this user's password?");
    findings.push(...(await axeFindings(page, 'user, password dialog')));
    await closeDialog(dialog);
    dialog = await openDialog(page, page.getByRole('button', { name: 'Sign out everywhere' }), 'Sign this user out everywhere?');
    findings.push(...(await axeFindings(page, 'user, sign-out dialog')));
    await closeDialog(dialog);

    await open('/users/linus', 'Linus Pauling');
    await page.getByRole('tab', { name: 'Moderation' }).click();
    dialog = await openDialog(page, page.getByRole('button', { name: 'Ban globally' }), 'Ban linus globally?');
    findings.push(...(await axeFindings(page, 'user, moderation and ban dialog')));
    await closeDialog(dialog);
    await page.getByRole('tab', { name: 'History' }).click();
    await page.getByText('cheap watches').first().waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'user, history')));
    expect(findings).toEqual([]);
  });

  it('Channels: the list, a channel’s messages, members and settings, and their dialogs', async () => {
    await open('/channels', 'Channels');
    await page
      .getByRole('link', { name: /General/ })
      .first()
      .waitFor();
    const findings = await axeFindings(page, 'channels');
    let dialog = await openDialog(page, page.getByRole('button', { name: 'New channel' }), 'New channel');
    findings.push(...(await axeFindings(page, 'channels, new channel dialog')));
    await closeDialog(dialog);

    await open('/channels/general', 'General');
    const poster = page.getByRole('button', { name: 'View image: The launch poster' });
    await poster.waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'channel, messages')));
    dialog = await openDialog(page, poster, 'The launch poster');
    await dialog.getByRole('img', { name: 'The launch poster' }).waitFor();
    findings.push(...(await axeFindings(page, 'channel, image dialog')));
    await closeDialog(dialog);
    const greeting = page.getByRole('article').filter({ hasText: 'Good morning' });
    dialog = await openDialog(page, greeting.getByRole('button', { name: 'Delete message' }), /Delete/);
    findings.push(...(await axeFindings(page, 'channel, delete message dialog')));
    await closeDialog(dialog);

    await page.getByRole('tab', { name: 'Members' }).click();
    await page.getByRole('button', { name: 'Manage linus' }).click();
    await page.getByRole('button', { name: 'Ban from channel' }).waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'channel, members')));
    dialog = await openDialog(page, page.getByRole('button', { name: 'Ban from channel' }), 'Ban linus from this channel?');
    findings.push(...(await axeFindings(page, 'channel, ban dialog')));
    await closeDialog(dialog);
    dialog = await openDialog(page, page.getByRole('button', { name: 'Remove from channel' }), 'Remove linus from this channel?');
    findings.push(...(await axeFindings(page, 'channel, remove dialog')));
    await closeDialog(dialog);

    await page.getByRole('tab', { name: 'Settings' }).click();
    const close = page.getByRole('button', { name: 'Close channel' });
    await close.waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'channel, settings')));
    dialog = await openDialog(page, close, 'Close General?');
    findings.push(...(await axeFindings(page, 'channel, close dialog')));
    await closeDialog(dialog);
    expect(findings).toEqual([]);
  });

  it('Rules and Roles, with their edit and delete dialogs', async () => {
    await open('/rules', 'Rules');
    await page.getByRole('cell', { name: 'giveaway', exact: true }).waitFor();
    const findings = await axeFindings(page, 'rules');
    let dialog = await openDialog(page, page.getByRole('button', { name: 'Edit rule giveaway' }), 'Edit rule “giveaway”');
    findings.push(...(await axeFindings(page, 'rules, edit dialog')));
    await closeDialog(dialog);
    dialog = await openDialog(page, page.getByRole('button', { name: 'Delete rule' }).first(), 'Delete the rule “giveaway”?');
    findings.push(...(await axeFindings(page, 'rules, delete dialog')));
    await closeDialog(dialog);

    await open('/roles', 'Roles');
    await page.getByRole('rowheader', { name: 'moderator' }).waitFor();
    // The grid names each permission in words (its code stays in the column heading) and each button by what it does.
    await expect(page.getByRole('checkbox', { name: 'Delete messages (moderator)' }).isChecked()).resolves.toBe(true);
    await expect(page.getByRole('checkbox', { name: 'Edit users (moderator)' }).isChecked()).resolves.toBe(false);
    await page.getByRole('columnheader', { name: 'Delete messages DELETE_MESSAGE' }).waitFor();
    await page.getByRole('button', { name: 'Save the permissions of moderator' }).waitFor();
    findings.push(...(await axeFindings(page, 'roles')));
    dialog = await openDialog(page, page.getByRole('button', { name: 'Delete role moderator' }), 'Delete the role moderator?');
    findings.push(...(await axeFindings(page, 'roles, delete dialog')));
    await closeDialog(dialog);
    expect(findings).toEqual([]);
  });

  it('Apps: clients, bots and admin tokens, with every dialog they open', async () => {
    await open('/apps', 'Apps');
    await page.getByRole('button', { name: 'Edit URIs of Team web app' }).waitFor();
    const findings = await axeFindings(page, 'apps, clients');
    let dialog = await openDialog(page, page.getByRole('button', { name: 'New OAuth client' }), 'New OAuth client');
    findings.push(...(await axeFindings(page, 'apps, new client dialog')));
    await dialog.getByLabel('Name').fill('Billing portal');
    await dialog.getByLabel('Sign-in redirect URIs, one per line').fill('https://billing.example/callback');
    await dialog.getByRole('button', { name: 'Create client' }).click();
    dialog = page.getByRole('dialog', { name: /Billing portal created/ });
    await dialog.getByText('Shown once', { exact: true }).waitFor();
    findings.push(...(await axeFindings(page, 'apps, secret shown once')));
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'hidden' });
    dialog = await openDialog(page, page.getByRole('button', { name: 'Edit URIs of Team web app' }), 'URIs of Team web app');
    findings.push(...(await axeFindings(page, 'apps, URIs dialog')));
    await closeDialog(dialog);
    dialog = await openDialog(page, page.getByRole('button', { name: 'Delete Team web app' }), 'Delete the client Team web app?');
    findings.push(...(await axeFindings(page, 'apps, delete client dialog')));
    await closeDialog(dialog);

    await page.getByRole('tab', { name: 'Bots' }).click();
    const bot = page.getByRole('region', { name: 'Bot Helpdesk bot' });
    await bot.waitFor();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'apps, bots')));
    dialog = await openDialog(page, bot.getByRole('button', { name: 'Issue token for Helpdesk bot' }), 'Issue a token for Helpdesk bot');
    findings.push(...(await axeFindings(page, 'apps, bot token dialog')));
    await closeDialog(dialog);
    dialog = await openDialog(page, bot.getByRole('button', { name: 'Change webhook of Helpdesk bot' }), 'Webhook of Helpdesk bot');
    findings.push(...(await axeFindings(page, 'apps, webhook dialog')));
    await closeDialog(dialog);

    await page.getByRole('tab', { name: 'Admin tokens' }).click();
    const revoke = page.getByRole('button', { name: 'Revoke backup-job' });
    await revoke.waitFor();
    findings.push(...(await axeFindings(page, 'apps, admin tokens')));
    dialog = await openDialog(page, revoke, 'Revoke the admin token backup-job?');
    findings.push(...(await axeFindings(page, 'apps, revoke dialog')));
    await closeDialog(dialog);
    expect(findings).toEqual([]);
  });

  it('Audit trail and Sessions', async () => {
    await open('/audit', 'Audit trail');
    await page.waitForLoadState('networkidle');
    const findings = await axeFindings(page, 'audit trail');
    await open('/sessions', 'Sessions');
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'sessions')));
    expect(findings).toEqual([]);
  });

  it('Tray inspector, with a user’s tray shown', async () => {
    await open('/tray', 'Tray inspector');
    const findings = await axeFindings(page, 'tray');
    await page.getByRole('combobox', { name: 'User id' }).fill('linus');
    await page.getByRole('button', { name: 'Show tray' }).click();
    await page.waitForLoadState('networkidle');
    findings.push(...(await axeFindings(page, 'tray, linus')));
    expect(findings).toEqual([]);
  });
});
