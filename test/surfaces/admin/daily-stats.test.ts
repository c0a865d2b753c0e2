import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../../src/app.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { signInClient } from '../../helpers/signin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { consoleRedirectUri, signInWithPkce } from '../console/console-signin.js';

interface Day {
  date: string;
  messages: number;
  activeUsers: number;
  signIns: number;
  flags: number;
  messageFlags: number;
  userFlags: number;
}

interface DailyAnswer {
  from: string;
  to: string;
  days: Day[];
}

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ZERO = { messages: 0, activeUsers: 0, signIns: 0, flags: 0, messageFlags: 0, userFlags: 0 };

describe.each(testDatabases)('GET /api/v2/stats/daily, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Sets the server clock's offset; answers the server's time. */
  async function setClock(offsetMs: number): Promise<number> {
    const response = await admin.call('PUT', '/api/v2/test-clock', { offsetMs });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { now: number }).now;
  }

  /** The figures once every instance's consumers have caught up with the outbox. */
  async function daily(query = '', apps: BuiltApp[] = []): Promise<DailyAnswer> {
    for (const app of [t, ...apps]) await app.events.consumers.drain();
    const response = await admin.call('GET', `/api/v2/stats/daily${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as DailyAnswer;
  }

  const today = async (): Promise<Day> => (await daily('?days=1')).days[0] as Day;

  async function member(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} person` });
    const minted = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 30 * 86_400 });
    const token = (minted.json() as { accessToken: string }).accessToken;
    const as = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>, app: BuiltApp = t): Promise<LightMyRequestResponse> =>
      app.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload }) });
    /** Sends a text message; answers its id and creation time. */
    const send = async (channelId: string, text: string, app: BuiltApp = t) => {
      const sent = await as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } }, app);
      expect(sent.statusCode, sent.body).toBe(200);
      const message = (sent.json() as { data: { messages: Array<{ messageId: string; createdAt: string }> } }).data.messages[0];
      if (!message) throw new Error('no message answered');
      return { messageId: message.messageId, createdAt: Date.parse(message.createdAt) };
    };
    return { userId, token, as, send };
  }

  it('counts the messages of each day of creation and each person once per day, bots left out; deleting keeps the count; days with nothing are zeros', async () => {
    const start = await setClock(0);
    const ann = await member('ann');
    const ben = await member('ben');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [ann.userId, ben.userId] });
    const bot = await createBot(t, 'Counter');

    // Expected figures, by the date each message was created on.
    const messages = new Map<string, number>();
    const people = new Map<string, Set<string>>();
    const count = (createdAt: number, userId: string | null) => {
      const date = dateOf(createdAt);
      messages.set(date, (messages.get(date) ?? 0) + 1);
      if (userId !== null) people.set(date, (people.get(date) ?? new Set()).add(userId));
    };

    const first = await ann.send(channelId, 'one');
    count(first.createdAt, ann.userId);
    count((await ann.send(channelId, 'two')).createdAt, ann.userId);
    count((await ben.send(channelId, 'three')).createdAt, ben.userId);
    const botSent = await bot.json(t.app, '/direct/message', { uid: ann.userId, message: { type: 'text', data: 'from the bot' } });
    expect(botSent.statusCode, botSent.body).toBe(200);
    count(Date.now(), null);
    // Deleted later, still a message created that day.
    expect((await admin.call('DELETE', `/api/v2/message/${first.messageId}`)).statusCode).toBe(200);

    await setClock(DAY_MS);
    count((await ann.send(channelId, 'next day')).createdAt, ann.userId);
    await setClock(3 * DAY_MS);

    const answer = await daily('?days=5');
    expect(answer.days.map((day) => day.date)).toEqual([-1, 0, 1, 2, 3].map((days) => dateOf(start + days * DAY_MS)));
    expect(answer.from).toBe(dateOf(start - DAY_MS));
    expect(answer.to).toBe(dateOf(start + 3 * DAY_MS));
    for (const day of answer.days) {
      expect(day, day.date).toEqual({ ...ZERO, date: day.date, messages: messages.get(day.date) ?? 0, activeUsers: people.get(day.date)?.size ?? 0 });
    }
    expect(answer.days.reduce((sum, day) => sum + day.messages, 0)).toBe(5);
    await setClock(0);
  });

  it('counts sign-ins: each authorization code exchanged once, not its replay, a refresh or a password alone', async () => {
    const signIn = signInClient(t);
    const before = await today();
    const { client, code } = await signIn.codeFor();
    const basic = { id: client.clientId, secret: client.clientSecret as string };
    const exchanged = await signIn.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic);
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    const replayed = await signIn.token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }, basic);
    expect(replayed.statusCode).toBe(400);
    const person = await signIn.createPerson();
    await signIn.login(person.username, person.password);
    const again = await signIn.codeFor();
    const second = await signIn.token(
      { grant_type: 'authorization_code', code: again.code, redirect_uri: again.client.redirectUri },
      { id: again.client.clientId, secret: again.client.clientSecret as string },
    );
    expect(second.statusCode, second.body).toBe(200);
    const refreshed = await signIn.token(
      { grant_type: 'refresh_token', refresh_token: (second.json() as { refresh_token: string }).refresh_token },
      { id: again.client.clientId, secret: again.client.clientSecret as string },
    );
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(await today()).toEqual({ ...before, signIns: before.signIns + 2 });
  });

  it('counts flags raised on messages and on users, a repeat not again, a review clearing them not back', async () => {
    const ann = await member('flagger');
    const ben = await member('flagged');
    const channelId = t.uniqueId('flags');
    await admin.createChannel(channelId, { userIds: [ann.userId, ben.userId] });
    const { messageId } = await ben.send(channelId, 'flag me');
    const before = await today();
    for (let i = 0; i < 2; i += 1) {
      expect((await ann.as('POST', `/client/v1/messages/${messageId}/flag`, {})).statusCode).toBe(200);
      expect((await ann.as('POST', `/client/v1/users/${ben.userId}/flag`, {})).statusCode).toBe(200);
    }
    expect((await admin.call('DELETE', `/api/v2/users/${ben.userId}/flags`)).statusCode).toBe(200);
    expect(await today()).toEqual({
      ...before,
      flags: before.flags + 2,
      messageFlags: before.messageFlags + 1,
      userFlags: before.userFlags + 1,
    });
  });

  it('answers 30 days by default, 1 to 90 on request, oldest first and ending today; other values are refused', async () => {
    const now = await setClock(0);
    const byDefault = await daily();
    expect(byDefault.days).toHaveLength(30);
    expect(byDefault.to).toBe(dateOf(now));
    expect(byDefault.from).toBe(dateOf(now - 29 * DAY_MS));
    const one = await daily('?days=1');
    expect(one.days.map((day) => day.date)).toEqual([dateOf(now)]);
    expect(one.from).toBe(one.to);
    const most = await daily('?days=90');
    expect(most.days).toHaveLength(90);
    expect(most.days.map((day) => day.date)).toEqual(Array.from({ length: 90 }, (_, i) => dateOf(now - (89 - i) * DAY_MS)));
    // Before this file's first message, every figure is zero.
    expect(most.days[0]).toEqual({ ...ZERO, date: dateOf(now - 89 * DAY_MS) });
    for (const days of ['0', '91', '-1', '2.5', 'many']) {
      const refused = await admin.call('GET', `/api/v2/stats/daily?days=${days}`);
      expect(refused.statusCode, days).toBe(422);
      expect((refused.json() as { code: number }).code).toBe(500000);
    }
  });

  it('is open to every console user: a moderator reads it, a user without a console role or a client token does not', async () => {
    const password = 'daily stats password 1';
    const role = t.uniqueId('role');
    await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['MUTE_CHANNEL'] });
    const moderator = t.uniqueId('moderator');
    await admin.createUser(moderator, { username: moderator, password, roles: [role] });
    const redirectUri = consoleRedirectUri(t.config.publicUrl);
    const signedIn = await signInWithPkce(t.app, { username: moderator, password, redirectUri });
    expect(signedIn.status, signedIn.body).toBe(200);
    const asModerator = await t.app.inject({ method: 'GET', url: '/api/v2/stats/daily?days=7', headers: { authorization: `Bearer ${signedIn.accessToken}` } });
    expect(asModerator.statusCode, asModerator.body).toBe(200);
    expect((asModerator.json() as DailyAnswer).days).toHaveLength(7);
    // The totals stay with network admins.
    const totals = await t.app.inject({ method: 'GET', url: '/api/v2/stats', headers: { authorization: `Bearer ${signedIn.accessToken}` } });
    expect(totals.statusCode).toBe(403);

    const plain = t.uniqueId('plain');
    await admin.createUser(plain, { username: plain, password });
    const plainConsole = await signInWithPkce(t.app, { username: plain, password, redirectUri });
    if (plainConsole.accessToken !== null) {
      const refused = await t.app.inject({ method: 'GET', url: '/api/v2/stats/daily', headers: { authorization: `Bearer ${plainConsole.accessToken}` } });
      expect(refused.statusCode).toBe(403);
    }
    const user = await member('client');
    const refused = await t.app.inject({ method: 'GET', url: '/api/v2/stats/daily', headers: { authorization: `Bearer ${user.token}` } });
    expect([401, 403]).toContain(refused.statusCode);
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/stats/daily' })).statusCode).toBe(401);
  });

  it.skipIf(database !== 'postgres')('counts every message once with two instances rolling up the same outbox', async () => {
    const peer = await t.startPeer({ PARLEY_TEST_CLOCK: '1' });
    const ann = await member('twice');
    const channelId = t.uniqueId('twice');
    await admin.createChannel(channelId, { userIds: [ann.userId] });
    const before = await daily('?days=2', [peer]);
    const sends = [];
    for (let i = 0; i < 20; i += 1) sends.push(ann.send(channelId, `message ${i}`, i % 2 === 0 ? t : peer));
    const sent = await Promise.all(sends);
    const after = await daily('?days=2', [peer]);
    const added = (answer: DailyAnswer) => answer.days.reduce((sum, day) => sum + day.messages, 0);
    expect(added(after) - added(before)).toBe(sent.length);
  });
});
