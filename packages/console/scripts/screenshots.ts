import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createPerson, hasChromium, launchChromium, type Server, signInWithAdminToken, startServer } from '../test/harness.js';

/**
 * `npm run console:screenshots`: starts Parley on a fresh SQLite directory, fills it with a small
 * team's data (people, channels, messages, flags with reasons, rules, roles, an OAuth client, a bot),
 * and saves a picture of each console screen to docs/console/ (1280 px wide; the queue also at 390 px).
 */
const OUT = path.resolve(import.meta.dirname, '../../../docs/console');

async function must(answer: Promise<{ status: number; json: unknown }>, what: string): Promise<unknown> {
  const { status, json } = await answer;
  if (status !== 200) throw new Error(`${what}: ${status} ${JSON.stringify(json)}`);
  return json;
}

function firstMessageId(json: unknown): string {
  return (json as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId as string;
}

async function seed(server: Server): Promise<{ userId: string }> {
  const people = await Promise.all(
    [
      ['ada', 'Ada Lovelace'],
      ['grace', 'Grace Hopper'],
      ['linus', 'Linus Pauling'],
      ['marie', 'Marie Curie'],
    ].map(([userId, displayName]) => createPerson(server, userId as string, { displayName })),
  );
  const [ada, grace, linus, marie] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0], (typeof people)[0]];
  const members = people.map((person) => person.userId);
  await must(
    server.admin('POST', '/api/v2/channel', { channelId: 'general', type: 'standard', displayName: 'General', userIds: members, tags: ['team'] }),
    'channel',
  );
  await must(
    server.admin('POST', '/api/v2/channel', { channelId: 'launch', type: 'standard', displayName: 'Launch planning', userIds: members, tags: ['project'] }),
    'channel',
  );
  const say = (token: string, channelId: string, text: string) =>
    must(server.client(token, 'POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } }), 'message');
  await say(ada.token, 'general', 'Good morning! The release notes are in the shared folder.');
  await say(grace.token, 'general', 'Thanks, reading them now.');
  const spam = firstMessageId(await say(linus.token, 'general', 'Get rich quick: crypto-giveaway.example/win'));
  await say(marie.token, 'general', 'Can we keep this channel on topic, please?');
  const rude = firstMessageId(await say(linus.token, 'launch', 'Whoever wrote this plan should not be allowed near a keyboard.'));
  await say(ada.token, 'launch', 'Launch is moved to Thursday 10:00.');
  await must(server.client(ada.token, 'POST', `/client/v1/messages/${spam}/flag`, { reason: 'Spam link' }), 'flag');
  await must(server.client(marie.token, 'POST', `/client/v1/messages/${spam}/flag`, { reason: 'Scam, please remove' }), 'flag');
  await must(server.client(grace.token, 'POST', `/client/v1/messages/${rude}/flag`, { reason: 'Insulting a colleague' }), 'flag');
  await must(server.client(marie.token, 'POST', `/client/v1/users/${linus.userId}/flag`, { reason: 'Posts the same link everywhere' }), 'user flag');
  await must(server.admin('POST', '/api/v2/blacklist/records', { regexs: ['giveaway', 'free money'], isMatchExactWord: false }), 'blacklist');
  await must(
    server.admin('PUT', '/api/v2/roles', { publicIds: ['moderator'], permissions: ['DELETE_MESSAGE', 'MUTE_USER_INSIDE_CHANNEL', 'BAN_USER_FROM_CHANNEL'] }),
    'role',
  );
  await must(server.admin('PUT', '/api/v2/roles', { publicIds: ['support'], permissions: ['EDIT_USER', 'BAN_USER'] }), 'role');
  await must(
    server.admin('POST', '/api/v2/oauth/clients', { name: 'Team web app', redirectUris: ['https://chat.example.com/callback'], public: true }),
    'client',
  );
  return { userId: linus.userId };
}

async function shoot(page: Page, server: Server, route: string, heading: string, file: string): Promise<void> {
  await page.goto(`${server.url}/console${route}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  // Lists and cards arrive after the heading; let them settle before the picture.
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(OUT, file), fullPage: false });
  process.stdout.write(`docs/console/${file}\n`);
}

async function main(): Promise<void> {
  if (!hasChromium) throw new Error('screenshots need /usr/bin/chromium (apt-get install -y chromium)');
  fs.mkdirSync(OUT, { recursive: true });
  const server = await startServer('sqlite');
  const browser = await launchChromium();
  try {
    const flagged = await seed(server);
    const login = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await shoot(login, server, '/login', 'Parley console', 'login.png');
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signInWithAdminToken(page, server);
    await shoot(page, server, '/queue', 'Moderation queue', 'queue.png');
    await shoot(page, server, '/users', 'Users', 'users.png');
    await shoot(page, server, `/users/${flagged.userId}`, flagged.userId === 'linus' ? 'Linus Pauling' : flagged.userId, 'user.png');
    await shoot(page, server, '/channels', 'Channels', 'channels.png');
    await shoot(page, server, '/channels/general', 'General', 'channel.png');
    await shoot(page, server, '/rules', 'Rules', 'rules.png');
    await shoot(page, server, '/roles', 'Roles', 'roles.png');
    await shoot(page, server, '/apps', 'Apps', 'apps.png');
    await shoot(page, server, '/overview', 'Overview', 'overview.png');
    await shoot(page, server, '/tray', 'Tray inspector', 'tray.png');
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await signInWithAdminToken(phone, server);
    await shoot(phone, server, '/queue', 'Moderation queue', 'queue-390.png');
  } finally {
    await browser.close();
    await server.stop();
  }
}

await main();
