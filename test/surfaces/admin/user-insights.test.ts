import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNetworkAdmins } from '../../../src/modules/identity/network-admins.js';
import { createAuthoredMessages } from '../../../src/modules/messages/messages.by-author.js';
import { createPageTokens } from '../../../src/shared/paging.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { type EndUser, type TrayKit, trayKit } from '../../helpers/tray.js';
import { consoleRedirectUri, signInWithPkce } from '../console/console-signin.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface Page<T> {
  items: T[];
  next: string | null;
  prev: string | null;
}

/**
 * What an administrator reads about one user (the record, the flags they received, their messages
 * across channels, their tray) and about the deployment (totals, the instance's status).
 */
describe.each(testDatabases)('user insights and status on the admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let kit: TrayKit;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1', PARLEY_TRAY_ENABLED: '1', PUBLIC_URL: 'https://chat.example' }, { validateResponses: true });
    admin = adminClient(t);
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const ok = async (url: string): Promise<Record<string, unknown>> => {
    const response = await admin.call('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };

  /** One page of a list answer: its items under `field`, and the tokens. */
  const page = async <T>(url: string, field: string): Promise<Page<T>> => {
    const body = await ok(url);
    const paging = body.paging as { next: string | null; prev: string | null };
    return { items: body[field] as T[], next: paging.next, prev: paging.prev };
  };

  const expectEnvelope = (response: LightMyRequestResponse, status: number, code: number): void => {
    expect({ status: response.statusCode, code: response.json().code }, response.body).toEqual({ status, code });
    expect(typeof response.json().message).toBe('string');
  };

  const send = (user: EndUser, channelId: string, text: string) =>
    user.ok<{ data: { messages: Array<{ messageId: string }> } }>('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });

  describe('GET /api/v2/users/{userId}', () => {
    it('answers the record the users list answers', async () => {
      const userId = t.uniqueId('rec');
      await admin.createUser(userId, { displayName: 'Rec Ord', roles: ['support'], metadata: { team: 'a' }, email: 'rec@example.com' });
      const listed = (await ok(`/api/v2/users?search=${userId}`)) as { users: Array<{ info: Record<string, unknown> }> };
      const { publicId, ...record } = listed.users[0]?.info ?? {};
      expect(publicId).toBe(userId);
      expect(await ok(`/api/v2/users/${userId}`)).toEqual(record);
    });

    it('is a 404 in the envelope for an unknown user', async () => {
      expectEnvelope(await admin.call('GET', `/api/v2/users/${t.uniqueId('nobody')}`), 404, 400400);
    });
  });

  describe('GET /api/v2/users?filter=banned', () => {
    it('lists only the globally banned users, and its page tokens keep the filter', async () => {
      const prefix = t.uniqueId('bn').toLowerCase();
      const ids = ['a', 'b', 'c', 'd', 'e'].map((letter) => `${prefix}-${letter}`);
      for (const id of ids) await admin.createUser(id);
      for (const id of [ids[0], ids[2], ids[3]]) expect((await admin.call('POST', '/api/v2/users/ban', { userId: id })).statusCode).toBe(200);
      await admin.call('POST', '/api/v2/users/unban', { userId: ids[3] });

      const first = await page<{ info: { userId: string; isGlobalBan: boolean } }>(`/api/v2/users?search=${prefix}&filter=banned&limit=1`, 'users');
      expect(first.items.map((entry) => entry.info.userId)).toEqual([ids[0]]);
      const second = await page<{ info: { userId: string } }>(`/api/v2/users?pageToken=${encodeURIComponent(first.next ?? '')}`, 'users');
      expect(second.items.map((entry) => entry.info.userId)).toEqual([ids[2]]);
      expect(second.next).toBeNull();
      const all = await page<{ info: { userId: string } }>(`/api/v2/users?search=${prefix}`, 'users');
      expect(all.items).toHaveLength(5);
      // A token of the banned list continues nothing else.
      expectEnvelope(await admin.call('GET', `/api/v2/users?filter=flagged&pageToken=${encodeURIComponent(first.next ?? '')}`), 400, 400000);
      expectEnvelope(await admin.call('GET', '/api/v2/users?filter=muted'), 400, 400000);
    });
  });

  describe('GET /api/v2/users/{userId}/flags', () => {
    it('lists the flags the user received, newest first, with flagger, reason and time, a page at a time', async () => {
      const target = await kit.user('target');
      const [ann, bob, cy] = [await kit.user('ann', 'Ann Flagger'), await kit.user('bob', 'Bob Flagger'), await kit.user('cy', 'Cy Flagger')];
      await ann.ok('POST', `/client/v1/users/${target.userId}/flag`, { reason: 'Spams every channel' });
      kit.advance(1000);
      await bob.ok('POST', `/client/v1/users/${target.userId}/flag`);
      kit.advance(1000);
      await cy.ok('POST', `/client/v1/users/${target.userId}/flag`, { reason: 'Rude' });

      const all = await page<{ flagger: { userId: string; displayName: string }; reason: string | null; createdAt: string }>(
        `/api/v2/users/${target.userId}/flags`,
        'flags',
      );
      expect(all.items.map((flag) => [flag.flagger, flag.reason])).toEqual([
        [{ userId: cy.userId, displayName: 'Cy Flagger' }, 'Rude'],
        [{ userId: bob.userId, displayName: 'Bob Flagger' }, null],
        [{ userId: ann.userId, displayName: 'Ann Flagger' }, 'Spams every channel'],
      ]);
      expect(Date.parse(all.items[0]?.createdAt ?? '') - Date.parse(all.items[2]?.createdAt ?? '')).toBeGreaterThanOrEqual(2000);
      expect([all.next, all.prev]).toEqual([null, null]);

      const first = await page<{ flagger: { userId: string } }>(`/api/v2/users/${target.userId}/flags?limit=2`, 'flags');
      expect(first.items.map((flag) => flag.flagger.userId)).toEqual([cy.userId, bob.userId]);
      const second = await page<{ flagger: { userId: string } }>(
        `/api/v2/users/${target.userId}/flags?pageToken=${encodeURIComponent(first.next ?? '')}`,
        'flags',
      );
      expect(second.items.map((flag) => flag.flagger.userId)).toEqual([ann.userId]);
      expect(second.next).toBeNull();
      const back = await page<{ flagger: { userId: string } }>(
        `/api/v2/users/${target.userId}/flags?pageToken=${encodeURIComponent(second.prev ?? '')}`,
        'flags',
      );
      expect(back.items.map((flag) => flag.flagger.userId)).toEqual([cy.userId, bob.userId]);

      // Another user's list does not take this list's token.
      expectEnvelope(await admin.call('GET', `/api/v2/users/${ann.userId}/flags?pageToken=${encodeURIComponent(first.next ?? '')}`), 400, 400000);
      expect((await admin.call('DELETE', `/api/v2/users/${target.userId}/flags`)).statusCode).toBe(200);
      expect((await page(`/api/v2/users/${target.userId}/flags`, 'flags')).items).toEqual([]);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${t.uniqueId('nobody')}/flags`), 404, 400400);
    });
  });

  describe('GET /api/v2/users/{userId}/messages', () => {
    it("lists the user's messages across channels newest first, deleted ones included, with channel names, a page at a time", async () => {
      const [author, other] = [await kit.user('author'), await kit.user('other')];
      const [general, random] = [t.uniqueId('general'), t.uniqueId('random')];
      await admin.createChannel(general, { displayName: 'General', userIds: [author.userId, other.userId] });
      await admin.createChannel(random, { displayName: 'Random', userIds: [author.userId] });
      const sent: string[] = [];
      for (const [index, channelId] of [general, random, general, random, general].entries()) {
        kit.advance(1000);
        const body = await send(author, channelId, `message ${index}`);
        sent.push(body.data.messages[0]?.messageId ?? '');
        await send(other, general, `not theirs ${index}`);
      }
      expect((await admin.call('DELETE', `/api/v2/message/${sent[1]}`)).statusCode).toBe(200);

      type Listed = { messageId: string; userId: string; channelId: string; isDeleted: boolean; data: { text?: string } };
      const whole = await ok(`/api/v2/users/${author.userId}/messages`);
      const messages = whole.messages as Listed[];
      expect(messages.map((message) => message.messageId)).toEqual([...sent].reverse());
      expect(messages.every((message) => message.userId === author.userId)).toBe(true);
      expect(messages.map((message) => message.isDeleted)).toEqual([false, false, false, true, false]);
      expect(messages[0]?.data.text).toBe('message 4');
      expect(whole.channels).toEqual(
        expect.arrayContaining([
          { channelId: general, displayName: 'General' },
          { channelId: random, displayName: 'Random' },
        ]),
      );
      expect(whole.channels).toHaveLength(2);
      // Every message of this database fits in one walk: it reached the oldest.
      expect([whole.scannedTo, whole.paging]).toEqual([null, { next: null, prev: null }]);

      // A full page stops the walk at its last message: the next page goes on below it.
      const first = await ok(`/api/v2/users/${author.userId}/messages?limit=2`);
      const firstPage = first.messages as Listed[];
      expect(firstPage.map((message) => message.messageId)).toEqual([sent[4], sent[3]]);
      expect(first.scannedTo).toBe((firstPage[1] as unknown as { createdAt: string }).createdAt);
      const seen = firstPage.map((message) => message.messageId);
      let token = (first.paging as { next: string | null }).next;
      while (token !== null) {
        const next: Page<Listed> = await page<Listed>(`/api/v2/users/${author.userId}/messages?pageToken=${encodeURIComponent(token)}`, 'messages');
        expect(next.items.length).toBeLessThanOrEqual(2);
        expect(next.prev).toBeNull();
        seen.push(...next.items.map((message) => message.messageId));
        token = next.next;
      }
      expect(seen).toEqual([...sent].reverse());

      const tokenOfFirst = (first.paging as { next: string }).next;
      expectEnvelope(await admin.call('GET', `/api/v2/users/${other.userId}/messages?pageToken=${encodeURIComponent(tokenOfFirst)}`), 400, 400000);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${author.userId}/messages?pageToken=forged.token`), 400, 400000);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${author.userId}/messages?limit=101`), 422, 500000);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${t.uniqueId('nobody')}/messages`), 404, 400400);
    });

    it('walks at most its budget of messages a page: far-apart messages come on later pages, each once, newest first', async () => {
      const budget = 4;
      const byAuthor = createAuthoredMessages({ db: t.storage.db, dialect: t.storage.dialect, pageTokens: createPageTokens('walk test'), scanBudget: budget });
      const [rare, busy] = [await kit.user('rare'), await kit.user('busy')];
      const channelId = t.uniqueId('walk');
      await admin.createChannel(channelId, { userIds: [rare.userId, busy.userId] });
      const chatter = async (count: number) => {
        for (let index = 0; index < count; index++) await send(busy, channelId, `chatter ${index}`);
      };
      const rareSent: string[] = [];
      for (const gap of [6, 0, 9, 5]) {
        kit.advance(1000);
        rareSent.push((await send(rare, channelId, `rare ${rareSent.length}`)).data.messages[0]?.messageId ?? '');
        await chatter(gap);
      }

      // The five newest messages are chatter: a walk of four finds none, and says how far back it read.
      const newest = await t.storage.db.selectFrom('messages').select(['id', 'created_at']).orderBy('id', 'desc').limit(budget).execute();
      const empty = await byAuthor(rare.userId, { limit: 2 });
      expect(empty.rows).toEqual([]);
      expect(empty.next).not.toBeNull();
      expect(empty.scannedTo).toBe(newest[budget - 1]?.created_at);

      const found: string[] = [];
      const scannedTo: Array<number | null> = [];
      let pages = 1;
      for (let next = empty.next; next !== null; pages++) {
        const result = await byAuthor(rare.userId, { pageToken: next });
        expect(result.rows.length).toBeLessThanOrEqual(2);
        found.push(...result.rows.map((row) => row.id));
        scannedTo.push(result.scannedTo);
        next = result.next;
      }
      expect(found).toEqual([...rareSent].reverse());
      // Only the last page reached the oldest message; the others each went further back.
      expect(scannedTo.at(-1)).toBeNull();
      const times = scannedTo.slice(0, -1) as number[];
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const total = Number(
        (
          await t.storage.db
            .selectFrom('messages')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      expect(pages).toBeGreaterThanOrEqual(Math.ceil(total / budget));
    });
  });

  describe('GET /api/v2/users/{userId}/tray', () => {
    it("answers the user's records as their own history renders them, and moves none of their read state", async () => {
      const owner = await kit.user('owner', 'Owner');
      const commenters = [await kit.user('c1', 'Cas'), await kit.user('c2', 'Dee'), await kit.user('c3', 'Eve')];
      for (const commenter of commenters) {
        const postId = await kit.post(owner, null, `post for ${commenter.name}`);
        kit.advance(1000);
        await kit.comment(commenter, postId);
        kit.advance(1000);
      }
      const own = await kit.history(owner);
      expect(own.data).toHaveLength(3);
      const readOne = own.data[1];
      if (!readOne) throw new Error('no record');
      await owner.ok('POST', '/notifications/read', { verb: readOne.verb, targetId: readOne.targetId, targetGroup: readOne.targetGroup });
      const before = await kit.history(owner);

      const inspected = await ok(`/api/v2/users/${owner.userId}/tray`);
      expect(inspected.data).toEqual(before.data);
      expect(inspected.lastRead).toEqual(before.lastRead);
      expect(inspected.paging).toEqual({ next: null, prev: null });
      expect((inspected.data as Array<{ hasRead: boolean }>).map((record) => record.hasRead)).toEqual([false, true, false]);

      // Page by page, the same records in the same order.
      const first = await page<{ lastUpdate: number }>(`/api/v2/users/${owner.userId}/tray?limit=2`, 'data');
      expect(first.items).toEqual(before.data.slice(0, 2));
      const second = await page<{ lastUpdate: number }>(`/api/v2/users/${owner.userId}/tray?pageToken=${encodeURIComponent(first.next ?? '')}`, 'data');
      expect(second.items).toEqual(before.data.slice(2));
      expect(second.next).toBeNull();

      // The inspection changed nothing the user sees.
      expect(await kit.history(owner)).toEqual(before);
      expect(before.lastRead.lastReadDate).toBeNull();
      await owner.ok('POST', '/notifications/last-read');
      const marked = (await kit.history(owner)).lastRead;
      expect(marked.lastReadDate).not.toBeNull();
      expect((await ok(`/api/v2/users/${owner.userId}/tray`)).lastRead).toEqual(marked);

      expectEnvelope(await admin.call('GET', `/api/v2/users/${commenters[0]?.userId}/tray?pageToken=${encodeURIComponent(first.next ?? '')}`), 400, 400000);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${owner.userId}/tray?limit=51`), 422, 500000);
      expectEnvelope(await admin.call('GET', `/api/v2/users/${t.uniqueId('nobody')}/tray`), 404, 400400);
    });
  });

  describe('GET /api/v2/stats and /api/v2/status', () => {
    it('answers the totals of users, channels and messages not deleted', async () => {
      const before = (await ok('/api/v2/stats')) as { users: number; channels: number; messages: number };
      const user = await kit.user('counted');
      const channelId = t.uniqueId('counted');
      await admin.createChannel(channelId, { userIds: [user.userId] });
      const sent = await send(user, channelId, 'one');
      await send(user, channelId, 'two');
      expect(await ok('/api/v2/stats')).toEqual({ users: before.users + 1, channels: before.channels + 1, messages: before.messages + 2 });
      await admin.call('DELETE', `/api/v2/message/${sent.data.messages[0]?.messageId}`);
      expect(await ok('/api/v2/stats')).toMatchObject({ messages: before.messages + 1 });
      // The users row of the admin token's user is counted like any other.
      const rows = await t.storage.db.selectFrom('users').select('id').execute();
      expect((await ok('/api/v2/stats')).users).toBe(rows.length);
    });

    it("answers the instance's version (package.json's, as /openapi.json states it), start time, outbox lag and sockets", async () => {
      const status = (await ok('/api/v2/status')) as { version: string; startedAt: string; outboxLag: number; sockets: number };
      expect(status.version).toBe(packageVersion);
      expect(Date.parse(status.startedAt)).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(status.startedAt)).toBeGreaterThan(Date.now() - 3600_000);
      expect(status.outboxLag).toBeGreaterThanOrEqual(0);
      expect(status.sockets).toBe(0);
      const document = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      expect(document.json().info.version).toBe(packageVersion);
    });
  });

  describe('for console users', () => {
    const password = 'console password 1';

    const consoleToken = async (username: string): Promise<string> => {
      const signedIn = await signInWithPkce(t.app, { username, password, redirectUri: consoleRedirectUri(t.config.publicUrl) });
      expect(signedIn.status, signedIn.body).toBe(200);
      return signedIn.accessToken as string;
    };

    const moderator = async (permissions: string[]): Promise<string> => {
      const userId = t.uniqueId('mod');
      const role = t.uniqueId('role');
      expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions })).statusCode).toBe(200);
      await admin.createUser(userId, { username: userId, password, roles: [role] });
      return consoleToken(userId);
    };

    const statusOf = async (token: string, url: string): Promise<number> =>
      (await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })).statusCode;

    it("lets EDIT_USER read a user's record, flags and messages, BAN_USER the record, and keeps the tray, totals and status to network admins", async () => {
      const target = t.uniqueId('looked-at');
      await admin.createUser(target);
      const editor = await moderator(['EDIT_USER']);
      const banner = await moderator(['BAN_USER']);
      const root = t.uniqueId('root');
      await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username: root, password, displayName: 'Root' });
      const networkAdmin = await consoleToken(root);

      const routes = ['', '/flags', '/messages', '/tray'].map((suffix) => `/api/v2/users/${target}${suffix}`);
      expect(await Promise.all(routes.map((url) => statusOf(editor, url)))).toEqual([200, 200, 200, 403]);
      expect(await Promise.all(routes.map((url) => statusOf(banner, url)))).toEqual([200, 403, 403, 403]);
      expect(await Promise.all(routes.map((url) => statusOf(networkAdmin, url)))).toEqual([200, 200, 200, 200]);
      for (const url of ['/api/v2/stats', '/api/v2/status']) {
        expect([await statusOf(editor, url), await statusOf(networkAdmin, url)]).toEqual([403, 200]);
      }
    });
  });
});

describe('GET /api/v2/users/{userId}/tray while the tray is off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  it('is a 403 saying the tray is not enabled', async () => {
    const admin = adminClient(t);
    const userId = t.uniqueId('nobody-tray');
    await admin.createUser(userId);
    const response = await admin.call('GET', `/api/v2/users/${userId}/tray`);
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 403, code: 400300 });
    expect(response.json().message).toMatch(/not enabled/);
  });
});
