import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../../../test/cli/processes.js';
import { createPerson, hasChromium, launchChromium, type Server, signInWithAdminToken, startServer } from './harness.js';

if (!hasChromium) process.stdout.write('console browser tests skipped: /usr/bin/chromium is absent (apt-get install -y chromium).\n');

/** Whether a username and password sign in on the login page (a 303 once signed in). */
async function signsIn(server: Server, username: string, password: string): Promise<boolean> {
  return (await loginCookie(server, username, password)) !== null;
}

/** Signs in on the login page as a browser does: the session cookie, or null when refused. */
async function loginCookie(server: Server, username: string, password: string): Promise<string | null> {
  const page = await fetch(`${server.url}/login`);
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const response = await fetch(`${server.url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, username, password }).toString(),
  });
  if (response.status !== 303) return null;
  const session = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .find((pair) => pair.startsWith('parley_session='));
  return session ?? null;
}

/** Whether a session cookie still signs the browser in (the login page says so). */
async function cookieSignsIn(server: Server, cookie: string): Promise<boolean> {
  return (await (await fetch(`${server.url}/login`, { headers: { cookie } })).text()).includes('You are signed in');
}

describe.skipIf(!hasChromium).each(databases)('the operator screens in Chromium on %s', (database) => {
  let server: Server;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
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

  it('creates a user on the Users screen, then hands them a password reset link that sets their password once', async () => {
    const page = await newPage();
    await signInWithAdminToken(page, server);
    await page.goto(`${server.url}/console/users`);
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'Create user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create user' });
    await dialog.getByLabel('User id').fill('nora');
    await dialog.getByLabel('Display name').fill('Nora Quinn');
    await dialog.getByLabel('Username').fill('nora-q');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('heading', { level: 1, name: 'Nora Quinn' }).waitFor();
    const created = await server.admin('GET', '/api/v2/users/nora');
    expect(created.json).toMatchObject({ userId: 'nora', displayName: 'Nora Quinn', username: 'nora-q' });

    // The same id again is refused, not an update of Nora.
    await page.goto(`${server.url}/console/users`);
    await page.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByLabel('User id').fill('nora');
    await dialog.getByLabel('Display name').fill('Someone else');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'exists already' }).waitFor();
    expect(((await server.admin('GET', '/api/v2/users/nora')).json as { displayName: string }).displayName).toBe('Nora Quinn');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto(`${server.url}/console/users/nora`);
    await page.getByRole('tab', { name: 'Access' }).click();
    await page.getByRole('button', { name: 'Make a password reset link' }).click();
    const linkBox = page.getByLabel('Reset link');
    await linkBox.waitFor();
    const link = await linkBox.inputValue();
    expect(link).toMatch(new RegExp(`^${server.url}/reset-password\\?token=[A-Za-z0-9_-]{43}$`));

    // The person opens it, chooses a password, and signs in with it; the link works once.
    const person = await newPage(390);
    await person.goto(link);
    await person.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await person.fill('#password', 'nora chose this one');
    await person.fill('#confirmation', 'nora chose this one');
    await person.click('button[type=submit]');
    await person.getByRole('heading', { name: 'Your password is set' }).waitFor();
    expect(await signsIn(server, 'nora-q', 'nora chose this one')).toBe(true);
    await person.goto(link);
    await person.getByRole('heading', { name: 'This link does not work' }).waitFor();

    const audit = await server.admin('GET', '/api/v2/audit?operation=user.passwordResetLink&target=nora');
    expect((audit.json as { entries: unknown[] }).entries).toHaveLength(1);
  });

  it('the audit trail: filters by operation, target and time, pages, and exports the filtered entries as CSV with formulas neutralised', async () => {
    const formulaId = '=1+2,"x"';
    expect((await server.admin('PUT', '/api/v2/users', { userId: formulaId, displayName: 'Formula' })).status).toBe(200);
    for (let index = 0; index < 55; index += 1) {
      expect((await server.admin('PUT', '/api/v2/users', { userId: `audited-${index}` })).status).toBe(200);
    }
    const listed = await server.admin('GET', '/api/v2/audit?operation=user.upsert&limit=100');
    const upserts = (listed.json as { entries: unknown[] }).entries.length;
    expect(upserts).toBeGreaterThanOrEqual(56);

    const page = await newPage();
    await signInWithAdminToken(page, server);
    await page.getByRole('navigation', { name: 'Console screens' }).getByRole('link', { name: 'Audit trail' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit trail' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit entries' });
    const rows = table.locator('tbody tr');

    await page.getByLabel('Operation', { exact: true }).fill('user.upsert');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(upserts);
    await expect(page.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);

    // The export holds every entry the filters select, one line each after the header.
    const [wholeExport] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const whole = fs.readFileSync(await wholeExport.path(), 'utf8');
    expect(whole.split('\r\n').filter((line) => line !== '')).toHaveLength(upserts + 1);
    await page
      .getByRole('status')
      .filter({ hasText: `all ${upserts} matching entries` })
      .waitFor();

    await page.getByLabel('Target', { exact: true }).fill(formulaId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await expect(rows.first().textContent()).resolves.toContain(formulaId);
    const [oneExport] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const lines = fs.readFileSync(await oneExport.path(), 'utf8').split('\r\n');
    expect(lines[0]).toBe('at,actorType,actorName,actorUserId,operation,method,route,targetIds,targetFields,status,success,errorCode,requestId');
    // RFC 4180 quoting, and the leading = made text with an apostrophe.
    expect(lines[1]).toContain(',user.upsert,PUT,/api/v2/users,"\'=1+2,""x""",userId,200,true,,');
    expect(lines.slice(2)).toEqual(['']);

    // A time range after every entry selects none.
    await page.getByLabel('From', { exact: true }).fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No administrative action matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => rows.count()).toBe(50);
  });

  it('sessions across users: who is signed in where, filtered by user, and a revoke that signs the browser out', async () => {
    const password = 'session person 1';
    for (const userId of ['sam-signed', 'tess-signed']) {
      expect((await server.admin('PUT', '/api/v2/users', { userId, username: userId, password, displayName: userId.toUpperCase() })).status).toBe(200);
    }
    const sam = (await loginCookie(server, 'sam-signed', password)) as string;
    const tess = (await loginCookie(server, 'tess-signed', password)) as string;
    expect(await cookieSignsIn(server, sam)).toBe(true);

    const page = await newPage();
    await signInWithAdminToken(page, server);
    await page.getByRole('navigation', { name: 'Console screens' }).getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    const table = page.getByRole('table', { name: 'Live sessions' });
    await table.getByRole('row').filter({ hasText: 'sam-signed' }).waitFor();
    await table.getByRole('row').filter({ hasText: 'tess-signed' }).waitFor();

    await page.getByLabel('User id').fill('sam-signed');
    await page.getByRole('button', { name: 'Show' }).click();
    const samsTable = page.getByRole('table', { name: 'Live sessions of sam-signed' });
    const samRow = samsTable.getByRole('row').filter({ hasText: 'SAM-SIGNED (sam-signed)' });
    await samRow.waitFor();
    await expect(samsTable.getByRole('row').filter({ hasText: 'tess-signed' }).count()).resolves.toBe(0);
    await samRow.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('sam-signed is not signed in anywhere.').waitFor();

    expect(await cookieSignsIn(server, sam)).toBe(false);
    expect(await cookieSignsIn(server, tess)).toBe(true);
    const audit = await server.admin('GET', '/api/v2/audit?operation=user.revokeSession&target=sam-signed');
    expect((audit.json as { entries: unknown[] }).entries).toHaveLength(1);
  });

  it('the queue: filters by channel, reporter and reason, bulk dismiss with a common reason and its failures, bulk delete', async () => {
    const author = await createPerson(server, 'q-author');
    const rita = await createPerson(server, 'q-rita');
    const ravi = await createPerson(server, 'q-ravi');
    for (const channelId of ['q-alpha', 'q-beta']) {
      const made = await server.admin('POST', '/api/v2/channel', { channelId, type: 'standard', userIds: [author.userId, rita.userId, ravi.userId] });
      expect(made.status).toBe(200);
    }
    const sendAs = async (channelId: string, text: string) => {
      const sent = await server.client(author.token, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });
      return (sent.json as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId as string;
    };
    const flagAs = async (token: string, messageId: string, reason: string) => {
      expect((await server.client(token, 'POST', `/client/v1/messages/${messageId}/flag`, { reason })).status).toBe(200);
    };
    const a1 = await sendAs('q-alpha', 'cheap watches one');
    const a2 = await sendAs('q-alpha', 'cheap watches two');
    const a3 = await sendAs('q-alpha', 'a fine text');
    const b1 = await sendAs('q-beta', 'rude words');
    await flagAs(rita.token, a1, 'Spam');
    await flagAs(rita.token, a2, 'spam again');
    await flagAs(ravi.token, a3, 'mistake');
    await flagAs(ravi.token, b1, 'Harassment');

    const page = await newPage();
    await signInWithAdminToken(page, server);
    await page.goto(`${server.url}/console/queue`);
    await page.getByRole('heading', { level: 1, name: 'Moderation queue' }).waitFor();
    const cards = page.getByRole('article');
    await expect.poll(() => cards.count()).toBe(4);

    await page.getByLabel('Reason contains').fill('SPAM');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => cards.count()).toBe(2);
    await page.getByLabel('Reason contains').fill('');
    await page.getByLabel('Reporter (user id)').fill(ravi.userId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => cards.count()).toBe(2);
    await cards.filter({ hasText: 'rude words' }).waitFor();
    await page.getByLabel('Reporter (user id)').fill('');
    await page.getByLabel('Channel id').fill('q-alpha');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => cards.count()).toBe(3);

    // All three selected; another moderator decides one while the dialog is open, so its review fails and is reported.
    await page.getByLabel('Select all shown').check();
    await page.getByText('3 selected').waitFor();
    await page.getByRole('button', { name: 'Dismiss selected' }).click();
    const dialog = page.getByRole('dialog', { name: 'Dismiss 3 selected messages' });
    await dialog.waitFor();
    expect((await server.admin('POST', `/api/v2/moderation/messages/${a2}/review`, { decision: 'dismiss' })).status).toBe(200);
    await dialog.getByLabel('Common reason').click();
    await page.getByRole('option', { name: 'Spam or advertising' }).click();
    await expect(dialog.getByLabel('Note (optional)').inputValue()).resolves.toBe('Spam or advertising');
    await dialog.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await dialog.getByText('3 of 3 done, 1 failed').waitFor();
    await dialog
      .getByRole('alert')
      .filter({ hasText: '1 could not be decided' })
      .filter({ hasText: `${a2}: The message has no open flags` })
      .waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();

    const reviews = await server.admin('GET', '/api/v2/moderation/reviews?targetType=message');
    const listed = (reviews.json as { reviews: Array<{ decision: string; note: string | null; targetId: string }> }).reviews;
    expect(listed.map((review) => [review.targetId, review.decision, review.note]).sort()).toEqual(
      [
        [a1, 'dismiss', 'Spam or advertising'],
        [a2, 'dismiss', null],
        [a3, 'dismiss', 'Spam or advertising'],
      ].sort(),
    );

    // The rest: a bulk delete of the beta message.
    await page.getByRole('button', { name: 'Clear' }).click();
    const left = cards.filter({ hasText: 'rude words' });
    await left.waitFor();
    await page
      .getByLabel(/Select the message by q-author/)
      .first()
      .check();
    await page.getByRole('button', { name: 'Delete selected' }).click();
    const deleting = page.getByRole('dialog', { name: 'Delete 1 selected message' });
    await deleting.getByRole('button', { name: 'Delete', exact: true }).click();
    await deleting.getByRole('status').filter({ hasText: 'All done' }).waitFor();
    await deleting.getByRole('button', { name: 'Done' }).click();
    const open = await server.admin('GET', '/api/v2/moderation/messages?status=open');
    expect((open.json as { items: unknown[] }).items).toEqual([]);
    const reviewed = await server.admin('GET', '/api/v2/moderation/reviews?targetType=message');
    expect((reviewed.json as { reviews: Array<{ targetId: string; decision: string }> }).reviews[0]).toMatchObject({ targetId: b1, decision: 'delete' });
  });
});
