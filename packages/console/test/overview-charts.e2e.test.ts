import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databases } from '../../../test/cli/processes.js';
import { createNetworkAdmin, createPerson, hasChromium, launchChromium, type Server, signInThroughLoginPage, startServer } from './harness.js';

if (!hasChromium) process.stdout.write('console browser tests skipped: /usr/bin/chromium is absent (apt-get install -y chromium).\n');

interface Day {
  date: string;
  messages: number;
  activeUsers: number;
  signIns: number;
  flags: number;
}

const CHARTS = [
  { title: 'Messages per day, last 30 days', field: 'messages' },
  { title: 'Active users per day, last 30 days', field: 'activeUsers' },
  { title: 'Sign-ins per day, last 30 days', field: 'signIns' },
  { title: 'Flags per day, last 30 days', field: 'flags' },
] as const;

describe.skipIf(!hasChromium).each(databases)("the Overview's charts in Chromium on %s", (database) => {
  let server: Server;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(database);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function daily(): Promise<Day[]> {
    const answer = await server.admin('GET', '/api/v2/stats/daily?days=30');
    expect(answer.status).toBe(200);
    return (answer.json as { days: Day[] }).days;
  }

  it('draws messages, active users, sign-ins and flags per day from the statistics endpoint, each chart with its values in a table', async () => {
    const ann = await createPerson(server, 'chart-ann');
    const ben = await createPerson(server, 'chart-ben');
    expect((await server.admin('POST', '/api/v2/channel', { channelId: 'charts', type: 'standard', userIds: [ann.userId, ben.userId] })).status).toBe(200);
    const send = (token: string, text: string) => server.client(token, 'POST', '/client/v1/channels/charts/messages', { type: 'text', data: { text } });
    for (const text of ['one', 'two', 'three']) expect((await send(ann.token, text)).status).toBe(200);
    const flagged = await send(ben.token, 'four');
    const messageId = (flagged.json as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId;
    expect((await server.client(ann.token, 'POST', `/client/v1/messages/${messageId}/flag`, { reason: 'Spam' })).status).toBe(200);
    expect((await server.client(ann.token, 'POST', `/client/v1/users/${ben.userId}/flag`, {})).status).toBe(200);
    // The rollup follows the outbox a moment behind: wait until today holds the four messages.
    await expect.poll(async () => (await daily()).at(-1)?.messages, { timeout: 15_000 }).toBe(4);

    await createNetworkAdmin(server, 'chart-admin', 'chart admin password');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await signInThroughLoginPage(page, server, 'chart-admin', 'chart admin password');
      await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      await page.getByRole('heading', { level: 2, name: 'Last 30 days' }).waitFor();
      for (const chart of CHARTS) await page.getByRole('img', { name: chart.title }).waitFor();

      const days = await daily();
      expect(days).toHaveLength(30);
      const today = days.at(-1) as Day;
      expect(today).toMatchObject({ messages: 4, activeUsers: 2, flags: 2 });
      // The admin's own sign-in through the login page is one.
      expect(today.signIns).toBeGreaterThanOrEqual(1);
      for (const chart of CHARTS) {
        const image = page.getByRole('img', { name: chart.title });
        await expect(image.getAttribute('aria-describedby')).resolves.toBeTruthy();
        await expect(image.locator('rect').count()).resolves.toBe(30);
        const table = page.getByRole('table', { name: `${chart.title}, per day` });
        const rows = await table
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')?.textContent ?? '', tr.querySelector('td')?.textContent ?? '']));
        expect(rows, chart.title).toEqual(days.map((day) => [day.date, String(day[chart.field])]));
      }
      // The description sums the month up in words.
      const description = await page.getByRole('img', { name: CHARTS[0].title }).evaluate((svg) => svg.querySelector('desc')?.textContent ?? '');
      expect(description).toContain('30 days from');
      expect(description).toContain(`${days.reduce((sum, day) => sum + day.messages, 0)} messages in all`);
    } finally {
      await context.close();
    }
  });
});
