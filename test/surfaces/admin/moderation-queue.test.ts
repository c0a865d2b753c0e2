import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotices } from '../../../src/events/notices.js';
import { type BanLifts, createBanLifts } from '../../../src/modules/bans/ban-lifts.service.js';
import { createChannelsService } from '../../../src/modules/channels/channels.service.js';
import { CONSOLE_CLIENT_ID } from '../../../src/modules/identity/console-client.js';
import { createNetworkAdmins } from '../../../src/modules/identity/network-admins.js';
import { createModerationQueueService, type ModerationQueueDeps, type ModerationQueueService } from '../../../src/modules/moderation-queue/queue.service.js';
import type { AdminActor } from '../../../src/modules/roles/admin-actor.js';
import type { Permission } from '../../../src/modules/roles/permissions.js';
import { createRolesService } from '../../../src/modules/roles/roles.service.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { createUsersService } from '../../../src/modules/users/users.service.js';
import type { UserRow } from '../../../src/modules/users/users.types.js';
import { createPageTokens } from '../../../src/shared/paging.js';
import { adminClient } from '../../helpers/admin.js';
import { createBot } from '../../helpers/bot.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Flag {
  userId: string;
  displayName: string;
  reason: string | null;
  createdAt: string;
}
interface Paging {
  next: string | null;
  prev: string | null;
}
interface OpenMessage {
  message: { messageId: string; channelId: string; userId: string; data: Record<string, unknown>; flagCount: number; isDeleted: boolean };
  channel: { channelId: string; displayName: string };
  author: { userId: string; displayName: string; avatarUrl: string | null };
  flagCount: number;
  flags: Flag[];
  lastFlaggedAt: string;
}
interface OpenUser {
  user: { userId: string; flagCount: number; isGlobalBan: boolean };
  flagCount: number;
  flags: Flag[];
  lastFlaggedAt: string;
}
interface Review {
  reviewId: string;
  targetType: 'message' | 'user';
  targetId: string;
  channelId: string | null;
  decision: string;
  authorAction: { action: string; minutes: number | null } | null;
  note: string | null;
  reviewer: { kind: string; id: string };
  flags: Array<{ userId: string; reason: string | null; createdAt: string }>;
  message: { text: string | null; userId: string } | null;
  createdAt: string;
}

const MINUTE = 60_000;

describe.each(testDatabases)('the moderation queue of the admin API, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let offset = 0;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Moves the server clock forward, so the flags that follow are newer. */
  function advance(ms: number): void {
    offset += ms;
    t.clock.setOffset(offset);
  }

  async function person(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} person` });
    const minted = await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 365 * 24 * 3600 });
    const token = (minted.json() as { accessToken: string }).accessToken;
    const as = (method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, as };
  }
  type Person = Awaited<ReturnType<typeof person>>;

  async function ok<T>(method: Method, url: string, body?: unknown): Promise<T> {
    const response = await admin.call(method, url, body);
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200);
    return response.json() as T;
  }

  /** An author, flaggers, and a channel holding them all. */
  async function room(flaggerCount = 2) {
    const author = await person('author');
    const flaggers: Person[] = [];
    for (let i = 0; i < flaggerCount; i += 1) flaggers.push(await person('flagger'));
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { displayName: 'Town square', userIds: [author.userId, ...flaggers.map((one) => one.userId)] });
    return { author, flaggers, channelId };
  }

  async function send(author: Person, channelId: string, text: string): Promise<LightMyRequestResponse> {
    return author.as('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } });
  }

  async function post(author: Person, channelId: string, text: string): Promise<string> {
    const sent = await send(author, channelId, text);
    expect(sent.statusCode, sent.body).toBe(200);
    return (sent.json() as { data: { messages: Array<{ messageId: string }> } }).data.messages[0]?.messageId as string;
  }

  async function flag(flagger: Person, messageId: string, reason?: string): Promise<void> {
    const response = await flagger.as('POST', `/client/v1/messages/${messageId}/flag`, reason === undefined ? undefined : { reason });
    expect(response.statusCode, response.body).toBe(200);
  }

  async function openMessages(query = 'limit=100'): Promise<{ items: OpenMessage[]; paging: Paging }> {
    return ok('GET', `/api/v2/moderation/messages?${query}`);
  }
  const openItem = async (messageId: string) => (await openMessages()).items.find((item) => item.message.messageId === messageId);

  async function reviews(query: string): Promise<{ reviews: Review[]; paging: Paging }> {
    return ok('GET', `/api/v2/moderation/reviews?${query}`);
  }

  /** The lift of timed bans, as the server's periodic look runs it, on this app's database and clock. */
  async function liftsOn(): Promise<BanLifts> {
    const { db, dialect } = t.storage;
    const pageTokens = createPageTokens('lift-test');
    const notices = await createNotices(t.events.bus, () => undefined);
    const users = createUsersService({ db, clock: t.clock, pageTokens, notices, roles: createRolesService({ db, clock: t.clock }) });
    const channels = createChannelsService({ db, dialect, clock: t.clock, pageTokens, closeHooks: [] });
    return createBanLifts({ db, clock: t.clock, channels, users, onBackgroundError: () => undefined });
  }

  it('lists a flagged message with its channel, author and each flag: reporter, reason and time', async () => {
    const { author, flaggers, channelId } = await room(1);
    const flagger = flaggers[0] as Person;
    const messageId = await post(author, channelId, 'buy cheap watches here');
    advance(1000);
    const before = t.clock.now();
    await flag(flagger, messageId, 'Spam link');

    const item = await openItem(messageId);
    expect(item).toMatchObject({
      message: { messageId, channelId, userId: author.userId, data: { text: 'buy cheap watches here' }, flagCount: 1, isDeleted: false },
      channel: { channelId, displayName: 'Town square' },
      author: { userId: author.userId, displayName: 'author person', avatarUrl: null },
      flagCount: 1,
      flags: [{ userId: flagger.userId, displayName: 'flagger person', reason: 'Spam link' }],
    });
    const flaggedAt = Date.parse(item?.flags[0]?.createdAt ?? '');
    expect(flaggedAt).toBeGreaterThanOrEqual(before);
    expect(flaggedAt - before).toBeLessThan(60_000);
    expect(item?.lastFlaggedAt).toBe(item?.flags[0]?.createdAt);
  });

  it('counts two flaggers, shows both reasons newest first, and lists messages by their newest flag', async () => {
    const { author, flaggers, channelId } = await room(2);
    const [ann, ben] = flaggers as [Person, Person];
    const first = await post(author, channelId, 'first rude thing');
    const second = await post(author, channelId, 'second rude thing');
    advance(1000);
    await flag(ann, first, 'Rude');
    advance(1000);
    await flag(ann, second, 'Also rude');
    advance(1000);
    await flag(ben, first, 'Insulting');

    const { items } = await openMessages();
    const firstItem = items.find((item) => item.message.messageId === first);
    expect(firstItem?.flagCount).toBe(2);
    expect(firstItem?.flags.map((one) => [one.userId, one.reason])).toEqual([
      [ben.userId, 'Insulting'],
      [ann.userId, 'Rude'],
    ]);
    // The first message's newest flag is the newest of all: it leads the queue.
    expect(items.findIndex((item) => item.message.messageId === first)).toBeLessThan(items.findIndex((item) => item.message.messageId === second));
    expect(items[0]?.message.messageId).toBe(first);
  });

  it('deletes the message and bans its author for 60 minutes: the author cannot send, the queue forgets it, the reviews keep it', async () => {
    const { author, flaggers, channelId } = await room(2);
    const [ann, ben] = flaggers as [Person, Person];
    const messageId = await post(author, channelId, 'you are all idiots');
    advance(1000);
    await flag(ann, messageId, 'Insults');
    advance(1000);
    await flag(ben, messageId);

    const reviewed = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, {
      decision: 'delete',
      author: { action: 'ban', minutes: 60 },
      note: '  Second warning  ',
    });
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    const review = (reviewed.json() as { review: Review }).review;
    expect(review).toMatchObject({
      targetType: 'message',
      targetId: messageId,
      channelId,
      decision: 'delete',
      authorAction: { action: 'ban', minutes: 60 },
      note: 'Second warning',
      reviewer: { kind: 'adminToken' },
      message: { text: 'you are all idiots', userId: author.userId },
    });
    expect(review.flags.map((one) => [one.userId, one.reason])).toEqual([
      [ben.userId, null],
      [ann.userId, 'Insults'],
    ]);

    const stored = await ok<{ message: { isDeleted: boolean; flagCount: number; data: Record<string, unknown> } }>('GET', `/api/v2/message/${messageId}`);
    expect(stored.message).toMatchObject({ isDeleted: true, flagCount: 0, data: {} });
    const refused = await send(author, channelId, 'let me back in');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ status: 'error', code: 400304 });
    expect(await openItem(messageId)).toBeUndefined();

    const reviewedList = await ok<{ reviews: Review[] }>('GET', '/api/v2/moderation/messages?status=reviewed');
    expect(reviewedList.reviews[0]).toEqual(review);
    expect((await reviews('targetType=message')).reviews[0]).toEqual(review);
    expect((await reviews('')).reviews.find((one) => one.reviewId === review.reviewId)).toEqual(review);
    // Nothing reviewed yet among users: the review is of a message.
    expect((await reviews('targetType=user')).reviews.some((one) => one.reviewId === review.reviewId)).toBe(false);

    // The audit trail names the review.
    const audit = await ok<{ entries: Array<{ operation: string; status: number }> }>('GET', `/api/v2/audit?target=${messageId}`);
    expect(audit.entries.map((entry) => [entry.operation, entry.status])).toEqual([['moderation.reviewMessage', 200]]);

    // A second review finds nothing open.
    const again = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'dismiss' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 400900 });

    // Sixty minutes on, the lift ends the ban.
    const lifts = await liftsOn();
    expect(await lifts.liftDue()).toBe(0);
    advance(61 * MINUTE);
    expect(await lifts.liftDue()).toBeGreaterThanOrEqual(1);
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [author.userId] })).statusCode).toBe(200);
    expect((await send(author, channelId, 'back again')).statusCode).toBe(200);
    expect(await lifts.liftDue()).toBe(0);
  });

  it('dismisses the flags and keeps the message', async () => {
    const { author, flaggers, channelId } = await room(1);
    const messageId = await post(author, channelId, 'a sharp but fair remark');
    await flag(flaggers[0] as Person, messageId, 'Harsh');
    const reviewed = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'dismiss' });
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    expect(reviewed.json().review).toMatchObject({ decision: 'dismiss', authorAction: null, note: null, flags: [{ reason: 'Harsh' }] });

    const stored = await ok<{ message: { isDeleted: boolean; flagCount: number; data: Record<string, unknown> } }>('GET', `/api/v2/message/${messageId}`);
    expect(stored.message).toMatchObject({ isDeleted: false, flagCount: 0, data: { text: 'a sharp but fair remark' } });
    expect(await openItem(messageId)).toBeUndefined();
    expect((await send(author, channelId, 'still here')).statusCode).toBe(200);
    // Flagged again later, it is back in the queue with the new flag only.
    await flag(flaggers[0] as Person, messageId, 'Again');
    expect((await openItem(messageId))?.flags.map((one) => one.reason)).toEqual(['Again']);
  });

  it('mutes the author in the channel for the minutes given; a mute of someone who left changes nothing', async () => {
    const { author, flaggers, channelId } = await room(1);
    const messageId = await post(author, channelId, 'noise');
    await flag(flaggers[0] as Person, messageId);
    const muted = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'dismiss', author: { action: 'mute', minutes: 5 } });
    expect(muted.statusCode, muted.body).toBe(200);
    expect(muted.json().review.authorAction).toEqual({ action: 'mute', minutes: 5 });
    expect((await send(author, channelId, 'more noise')).json()).toMatchObject({ code: 400302 });
    advance(6 * MINUTE);
    expect((await send(author, channelId, 'quiet now')).statusCode).toBe(200);

    const other = await post(author, channelId, 'parting shot');
    await flag(flaggers[0] as Person, other);
    await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [author.userId] });
    const refused = await admin.call('POST', `/api/v2/moderation/messages/${other}/review`, { decision: 'delete', author: { action: 'mute' } });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ status: 'error', code: 400400 });
    // Nothing was done: the message stands and its flag waits.
    expect((await ok<{ message: { isDeleted: boolean } }>('GET', `/api/v2/message/${other}`)).message.isDeleted).toBe(false);
    expect((await openItem(other))?.flagCount).toBe(1);
  });

  it('answers 404 for an unknown message and 409 for one never flagged', async () => {
    const missing = await admin.call('POST', `/api/v2/moderation/messages/${'a'.repeat(24)}/review`, { decision: 'dismiss' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 400400 });
    const { author, channelId } = await room(0);
    const messageId = await post(author, channelId, 'nobody minds');
    const unflagged = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'delete' });
    expect(unflagged.statusCode).toBe(409);
    expect(unflagged.json()).toMatchObject({ status: 'error', code: 400900 });
    expect((await ok<{ message: { isDeleted: boolean } }>('GET', `/api/v2/message/${messageId}`)).message.isDeleted).toBe(false);
  });

  it('refuses bad review bodies in the envelope', async () => {
    const { author, flaggers, channelId } = await room(1);
    const messageId = await post(author, channelId, 'borderline');
    await flag(flaggers[0] as Person, messageId);
    const url = `/api/v2/moderation/messages/${messageId}/review`;
    const cases: Array<[unknown, number, number]> = [
      [{}, 422, 500000],
      [{ decision: 'maybe' }, 400, 400000],
      [{ decision: 'delete', author: { action: 'exile' } }, 400, 400000],
      [{ decision: 'delete', author: { action: 'ban', minutes: 0 } }, 422, 500000],
      [{ decision: 'delete', author: { action: 'ban', minutes: 525_601 } }, 422, 500000],
      [{ decision: 'delete', author: { action: 'ban', minutes: 1.5 } }, 422, 500000],
      [{ decision: 'dismiss', note: 'n'.repeat(1001) }, 422, 500000],
    ];
    for (const [body, status, code] of cases) {
      const response = await admin.call('POST', url, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json()).toMatchObject({ status: 'error', code, data: { detail: expect.any(Array) } });
    }
    const userUrl = `/api/v2/moderation/users/${author.userId}/review`;
    expect((await admin.call('POST', userUrl, { decision: 'delete' })).statusCode).toBe(400);
    const query = await admin.call('GET', '/api/v2/moderation/messages?status=closed');
    expect(query.statusCode).toBe(400);
    expect((await admin.call('GET', '/api/v2/moderation/reviews?limit=101')).statusCode).toBe(422);
    // Nothing happened to the message.
    expect((await openItem(messageId))?.flagCount).toBe(1);
  });

  it('lists flagged users with reasons, and a review bans them globally for a time or dismisses', async () => {
    const target = await person('troll');
    const calm = await person('calm');
    const ann = await person('ann');
    const ben = await person('ben');
    advance(1000);
    expect((await ann.as('POST', `/client/v1/users/${target.userId}/flag`, { reason: 'Harasses people' })).statusCode).toBe(200);
    advance(1000);
    expect((await ben.as('POST', `/client/v1/users/${target.userId}/flag`, { reason: 'Spam' })).statusCode).toBe(200);
    advance(1000);
    expect((await ann.as('POST', `/client/v1/users/${calm.userId}/flag`)).statusCode).toBe(200);

    const open = await ok<{ items: OpenUser[]; paging: Paging }>('GET', '/api/v2/moderation/users');
    const item = open.items.find((one) => one.user.userId === target.userId);
    expect(item).toMatchObject({ user: { userId: target.userId, flagCount: 2, isGlobalBan: false }, flagCount: 2 });
    expect(item?.flags.map((one) => [one.userId, one.displayName, one.reason])).toEqual([
      [ben.userId, 'ben person', 'Spam'],
      [ann.userId, 'ann person', 'Harasses people'],
    ]);
    expect(open.items[0]?.user.userId).toBe(calm.userId);

    const refused = await admin.call('POST', `/api/v2/moderation/users/${calm.userId}/review`, { decision: 'dismiss', minutes: 10 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 500000, data: { fields: [{ field: 'body.minutes' }] } });
    const dismissed = await admin.call('POST', `/api/v2/moderation/users/${calm.userId}/review`, { decision: 'dismiss', note: 'Misunderstanding' });
    expect(dismissed.statusCode, dismissed.body).toBe(200);
    expect(dismissed.json().review).toMatchObject({
      targetType: 'user',
      targetId: calm.userId,
      channelId: null,
      decision: 'dismiss',
      authorAction: null,
      message: null,
    });

    const banned = await admin.call('POST', `/api/v2/moderation/users/${target.userId}/review`, { decision: 'globalBan', minutes: 90 });
    expect(banned.statusCode, banned.body).toBe(200);
    const review = (banned.json() as { review: Review }).review;
    expect(review).toMatchObject({ targetType: 'user', decision: 'globalBan', authorAction: { action: 'globalBan', minutes: 90 }, note: null, message: null });
    expect(review.flags.map((one) => one.reason)).toEqual(['Spam', 'Harasses people']);
    expect((await target.as('GET', '/client/v1/me')).json()).toMatchObject({ code: 400312 });
    const user = await ok<{ users: Array<{ info: { flagCount: number; isGlobalBan: boolean } }> }>('GET', `/api/v2/users?search=${target.userId}`);
    expect(user.users[0]?.info).toMatchObject({ flagCount: 0, isGlobalBan: true });
    const stillOpen = (await ok<{ items: OpenUser[] }>('GET', '/api/v2/moderation/users')).items.map((one) => one.user.userId);
    expect(stillOpen).not.toContain(target.userId);
    expect(stillOpen).not.toContain(calm.userId);
    expect((await ok<{ reviews: Review[] }>('GET', '/api/v2/moderation/users?status=reviewed')).reviews.slice(0, 2)).toEqual([review, dismissed.json().review]);
    expect((await admin.call('POST', `/api/v2/moderation/users/${target.userId}/review`, { decision: 'dismiss' })).statusCode).toBe(409);
    expect((await admin.call('POST', `/api/v2/moderation/users/${t.uniqueId('ghost')}/review`, { decision: 'dismiss' })).statusCode).toBe(404);

    const lifts = await liftsOn();
    advance(91 * MINUTE);
    expect(await lifts.liftDue()).toBeGreaterThanOrEqual(1);
    const after = await ok<{ users: Array<{ info: { isGlobalBan: boolean } }> }>('GET', `/api/v2/users?search=${target.userId}`);
    expect(after.users[0]?.info.isGlobalBan).toBe(false);
  });

  it('keeps a ban indefinite when no minutes are given, and an earlier ban from elsewhere as it was', async () => {
    const { author, flaggers, channelId } = await room(1);
    const messageId = await post(author, channelId, 'banned for good');
    await flag(flaggers[0] as Person, messageId);
    const reviewed = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'delete', author: { action: 'ban' } });
    expect(reviewed.json().review.authorAction).toEqual({ action: 'ban', minutes: null });

    const other = await room(1);
    const otherMessage = await post(other.author, other.channelId, 'already in trouble');
    await flag(other.flaggers[0] as Person, otherMessage);
    // Banned by hand first: the review's timed ban does not shorten it.
    expect((await admin.call('POST', `/api/v2/channel/${other.channelId}/users/ban`, { userIds: [other.author.userId] })).statusCode).toBe(200);
    expect(
      (await admin.call('POST', `/api/v2/moderation/messages/${otherMessage}/review`, { decision: 'dismiss', author: { action: 'ban', minutes: 1 } }))
        .statusCode,
    ).toBe(200);

    const lifts = await liftsOn();
    advance(2 * MINUTE);
    await lifts.liftDue();
    for (const [channel, who] of [
      [channelId, author],
      [other.channelId, other.author],
    ] as const) {
      expect((await admin.call('POST', `/api/v2/channel/${channel}/users`, { userIds: [who.userId] })).json()).toMatchObject({ code: 400304 });
    }
  });

  /** Whether the user is banned from the channel: adding them back is refused as banned. */
  async function bannedFrom(channelId: string, userId: string): Promise<boolean> {
    const added = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [userId] });
    if (added.statusCode === 200) await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [userId] });
    return added.statusCode === 403 && (added.json() as { code: number }).code === 400304;
  }

  async function globallyBanned(userId: string): Promise<boolean> {
    const found = await ok<{ users: Array<{ info: { userId: string; isGlobalBan: boolean } }> }>('GET', `/api/v2/users?search=${userId}`);
    return found.users.find((one) => one.info.userId === userId)?.info.isGlobalBan === true;
  }

  /** A flagged user banned globally by a review for `minutes`. */
  async function bannedForAWhile(minutes: number): Promise<Person> {
    const target = await person('timed');
    const flagger = await person('flagger');
    expect((await flagger.as('POST', `/client/v1/users/${target.userId}/flag`, { reason: 'Spam' })).statusCode).toBe(200);
    const reviewed = await admin.call('POST', `/api/v2/moderation/users/${target.userId}/review`, { decision: 'globalBan', minutes });
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    return target;
  }

  it('lets a global ban or unban set by hand after a timed review ban stand: the review lifts nothing then', async () => {
    const reBanned = await bannedForAWhile(30);
    const unbanned = await bannedForAWhile(30);
    const untouched = await bannedForAWhile(30);
    // Banned again by hand while the review's ban holds: the ban becomes indefinite.
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: reBanned.userId })).statusCode).toBe(200);
    // Unbanned by hand, then banned by hand again: that later ban is not the review's to lift.
    expect((await admin.call('POST', '/api/v2/users/unban', { userId: unbanned.userId })).statusCode).toBe(200);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: unbanned.userId })).statusCode).toBe(200);

    const lifts = await liftsOn();
    advance(31 * MINUTE);
    await lifts.liftDue();
    expect(await globallyBanned(reBanned.userId)).toBe(true);
    expect(await globallyBanned(unbanned.userId)).toBe(true);
    // The review nobody overrode ends on time.
    expect(await globallyBanned(untouched.userId)).toBe(false);
  });

  it("lets a channel ban or unban set by hand after a review's timed channel ban stand, in that channel only", async () => {
    const { author, flaggers, channelId } = await room(1);
    const flagger = flaggers[0] as Person;
    const otherChannel = t.uniqueId('room');
    await admin.createChannel(otherChannel, { userIds: [author.userId, flagger.userId] });
    for (const channel of [channelId, otherChannel]) {
      const messageId = await post(author, channel, 'rude again');
      await flag(flagger, messageId, 'Rude');
      const reviewed = await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, {
        decision: 'dismiss',
        author: { action: 'ban', minutes: 20 },
      });
      expect(reviewed.statusCode, reviewed.body).toBe(200);
    }
    // Banned by hand again in the first channel (a ban that was one already changes no row).
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [author.userId] })).statusCode).toBe(200);

    const unbanCase = await room(1);
    const unbanMessage = await post(unbanCase.author, unbanCase.channelId, 'rude once more');
    await flag(unbanCase.flaggers[0] as Person, unbanMessage);
    await admin.call('POST', `/api/v2/moderation/messages/${unbanMessage}/review`, { decision: 'dismiss', author: { action: 'ban', minutes: 20 } });
    const unbanUrl = `/api/v2/channel/${unbanCase.channelId}/users/unban`;
    expect((await admin.call('POST', unbanUrl, { userIds: [unbanCase.author.userId] })).statusCode).toBe(200);
    expect((await admin.call('POST', `/api/v2/channel/${unbanCase.channelId}/users/ban`, { userIds: [unbanCase.author.userId] })).statusCode).toBe(200);

    const lifts = await liftsOn();
    advance(21 * MINUTE);
    await lifts.liftDue();
    expect(await bannedFrom(channelId, author.userId)).toBe(true);
    expect(await bannedFrom(unbanCase.channelId, unbanCase.author.userId)).toBe(true);
    // The other channel's review was not overridden: its ban ends on time.
    expect(await bannedFrom(otherChannel, author.userId)).toBe(false);
  });

  /** A token of the console's client for this user, as the console's sign-in gives one. */
  async function consoleCaller(userId: string) {
    const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
    const { token } = await tokens.issue({ kind: 'user', userId, clientId: CONSOLE_CLIENT_ID, expiresInMs: 365 * 24 * 60 * MINUTE });
    return (method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
  }

  it("keeps bots' conversations from moderators: not listed, not counted, not reviewable; admins see them", async () => {
    const bot = await createBot(t, 'Queue bot');
    const { author, flaggers, channelId } = await room(1);
    const reader = flaggers[0] as Person;
    const direct = await bot.json(t.app, '/direct/message', { uid: reader.userId, message: { type: 'text', data: 'a private offer' } });
    expect(direct.statusCode, direct.body).toBe(200);
    const privateId = (direct.json() as { message: { id: string } }).message.id;
    const publicId = await post(author, channelId, 'a public insult');
    advance(1000);
    await flag(reader, publicId, 'Insult');
    advance(1000);
    await flag(reader, privateId, 'Scam');

    const role = t.uniqueId('mods');
    expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['DELETE_MESSAGE'] })).statusCode).toBe(200);
    const moderatorId = t.uniqueId('mod');
    await admin.createUser(moderatorId, { displayName: 'Moderator', roles: [role] });
    const moderator = await consoleCaller(moderatorId);
    const rootName = t.uniqueId('root');
    await createNetworkAdmins({ db: t.storage.db, clock: t.clock }).create({ username: rootName, password: 'root password 1' });
    const root = await consoleCaller(rootName);

    const listed = async (call: typeof moderator) => {
      const response = await call('GET', '/api/v2/moderation/messages?limit=100');
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { items: OpenMessage[] }).items.map((item) => item.message.messageId);
    };
    const summary = async (call: typeof moderator) =>
      (await call('GET', '/api/v2/moderation/summary')).json() as { openMessages: number; latestFlagAt: string };
    expect(await listed(moderator)).toContain(publicId);
    expect(await listed(moderator)).not.toContain(privateId);
    for (const call of [root, admin.call]) expect(await listed(call)).toContain(privateId);
    const [seenByModerator, seenByRoot, seenByToken] = [await summary(moderator), await summary(root), await summary(admin.call)];
    expect(seenByRoot.openMessages).toBe(seenByModerator.openMessages + 1);
    expect(seenByToken.openMessages).toBe(seenByRoot.openMessages);
    // The conversation's flag is the newest of all: only those who see it count its time.
    expect(Date.parse(seenByRoot.latestFlagAt)).toBeGreaterThan(Date.parse(seenByModerator.latestFlagAt));

    // The review answers as for a message that does not exist, and does nothing.
    const refused = await moderator('POST', `/api/v2/moderation/messages/${privateId}/review`, { decision: 'delete' });
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ status: 'error', code: 400400 });
    expect((await openItem(privateId))?.flagCount).toBe(1);
    expect((await moderator('POST', `/api/v2/moderation/messages/${publicId}/review`, { decision: 'dismiss' })).statusCode).toBe(200);

    // A network admin reviews it; its review, which keeps the text, stays out of the moderator's lists.
    const reviewed = await root('POST', `/api/v2/moderation/messages/${privateId}/review`, { decision: 'dismiss' });
    expect(reviewed.statusCode, reviewed.body).toBe(200);
    expect(reviewed.json().review).toMatchObject({ message: { text: 'a private offer' }, reviewer: { kind: 'user', id: rootName } });
    const reviewIds = async (call: typeof moderator, url: string) =>
      ((await call('GET', url)).json() as { reviews: Review[] }).reviews.map((review) => review.targetId);
    for (const url of ['/api/v2/moderation/reviews?limit=100', '/api/v2/moderation/messages?status=reviewed&limit=100']) {
      expect(await reviewIds(moderator, url)).toContain(publicId);
      expect(await reviewIds(moderator, url)).not.toContain(privateId);
      expect(await reviewIds(root, url)).toContain(privateId);
    }
  });

  it('summarizes the open queue: counts and the newest flag', async () => {
    const before = await ok<{ openMessages: number; openUsers: number; latestFlagAt: string | null }>('GET', '/api/v2/moderation/summary');
    const { author, flaggers, channelId } = await room(1);
    const flagger = flaggers[0] as Person;
    const messageId = await post(author, channelId, 'count me');
    advance(1000);
    await flag(flagger, messageId);
    expect((await flagger.as('POST', `/client/v1/users/${author.userId}/flag`)).statusCode).toBe(200);
    const during = await ok<{ openMessages: number; openUsers: number; latestFlagAt: string | null }>('GET', '/api/v2/moderation/summary');
    expect(during.openMessages).toBe(before.openMessages + 1);
    expect(during.openUsers).toBe(before.openUsers + 1);
    expect(Date.parse(during.latestFlagAt ?? '')).toBeGreaterThan(Date.parse(before.latestFlagAt ?? '1970-01-01T00:00:00Z'));
    // A message deleted by other means leaves the queue and the count.
    await admin.call('DELETE', `/api/v2/message/${messageId}`);
    expect((await ok<{ openMessages: number }>('GET', '/api/v2/moderation/summary')).openMessages).toBe(before.openMessages);
    await admin.call('POST', `/api/v2/moderation/users/${author.userId}/review`, { decision: 'dismiss' });
    expect((await ok<{ openUsers: number }>('GET', '/api/v2/moderation/summary')).openUsers).toBe(before.openUsers);
  });

  it('pages the open queue and the reviews newest first, forwards and back', async () => {
    // Clear what earlier tests left open, so the pages hold only this test's messages.
    for (const item of (await openMessages()).items) {
      await admin.call('POST', `/api/v2/moderation/messages/${item.message.messageId}/review`, { decision: 'dismiss' });
    }
    const { author, flaggers, channelId } = await room(1);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const messageId = await post(author, channelId, `message ${i}`);
      advance(1000);
      await flag(flaggers[0] as Person, messageId, `reason ${i}`);
      ids.push(messageId);
    }
    const newestFirst = [...ids].reverse();
    const first = await openMessages('limit=2');
    const second = await openMessages(`pageToken=${first.paging.next}`);
    const third = await openMessages(`pageToken=${second.paging.next}`);
    const pages = [first, second, third].map((page) => page.items.map((item) => item.message.messageId));
    expect(pages).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    expect(first.paging.prev).toBeNull();
    expect(third.paging.next).toBeNull();
    const back = await openMessages(`pageToken=${third.paging.prev}`);
    expect(back.items.map((item) => item.message.messageId)).toEqual(newestFirst.slice(2, 4));
    // A token continues its own list only.
    const foreign = await admin.call('GET', `/api/v2/moderation/users?pageToken=${first.paging.next}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ status: 'error', code: 400000 });

    for (const messageId of ids) {
      advance(1000);
      await admin.call('POST', `/api/v2/moderation/messages/${messageId}/review`, { decision: 'dismiss' });
    }
    const firstReviews = await reviews('targetType=message&limit=3');
    const nextReviews = await reviews(`pageToken=${firstReviews.paging.next}`);
    expect([...firstReviews.reviews, ...nextReviews.reviews.slice(0, 2)].map((one) => one.targetId)).toEqual(newestFirst);
    expect(nextReviews.reviews.every((one) => one.targetType === 'message')).toBe(true);
    expect((await admin.call('GET', `/api/v2/moderation/reviews?targetType=user&pageToken=${firstReviews.paging.next}`)).statusCode).toBe(400);
  });
});

describe('who may use the moderation queue', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  const untouched = () => {
    throw new Error('an action ran before its permission was checked');
  };

  /** The queue with services that fail the test if an action gets that far. */
  function queue(findById: ModerationQueueDeps['users']['findById'] = untouched) {
    return createModerationQueueService({
      db: t.storage.db,
      clock: t.clock,
      pageTokens: createPageTokens('permissions-test'),
      messages: { deleteMessageIn: untouched },
      channels: { muteUsers: untouched, ban: untouched, findMember: untouched },
      users: { setGlobalBan: untouched, findById },
      banLifts: { afterReviewBan: untouched },
      audit: { writeIn: untouched },
    });
  }
  const moderator = (...permissions: Permission[]): AdminActor => ({ kind: 'user', userId: 'mod', networkAdmin: false, permissions: new Set(permissions) });
  const reviewer = (actor: AdminActor) => ({ actor, userId: 'mod' });
  const denied = { kind: 'permissionDenied' };

  it('lets any moderation permission see the queue, and nobody without one', async () => {
    const service = queue();
    for (const permission of ['DELETE_MESSAGE', 'BAN_USER', 'BAN_USER_FROM_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'] as const) {
      await expect(service.summary(moderator(permission))).resolves.toMatchObject({ openMessages: 0 });
    }
    await expect(service.summary(moderator('EDIT_CHANNEL', 'CLOSE_CHANNEL'))).rejects.toMatchObject(denied);
    await expect(service.openMessages(moderator(), {})).rejects.toMatchObject(denied);
    await expect(service.reviews(moderator('EDIT_USER'), null, {})).rejects.toMatchObject(denied);
    await expect(service.summary({ kind: 'user', userId: 'root', networkAdmin: true, permissions: new Set() })).resolves.toBeDefined();
  });

  it('needs the permission of each action of a review before doing anything', async () => {
    const service = queue();
    const cases: Array<[Permission[], Parameters<ModerationQueueService['reviewMessage']>[2]]> = [
      [['MUTE_USER_INSIDE_CHANNEL'], { decision: 'delete' }],
      [['DELETE_MESSAGE'], { decision: 'delete', author: { action: 'mute' } }],
      [['DELETE_MESSAGE', 'MUTE_USER_INSIDE_CHANNEL'], { decision: 'dismiss', author: { action: 'ban' } }],
      [['BAN_USER_FROM_CHANNEL'], { decision: 'dismiss', author: { action: 'globalBan' } }],
    ];
    for (const [permissions, input] of cases) {
      await expect(service.reviewMessage(reviewer(moderator(...permissions)), 'm1', input)).rejects.toMatchObject(denied);
    }
    await expect(service.reviewUser(reviewer(moderator('DELETE_MESSAGE')), 'u1', { decision: 'globalBan' })).rejects.toMatchObject(denied);
    await expect(service.reviewUser(reviewer(moderator('EDIT_CHANNEL')), 'u1', { decision: 'dismiss' })).rejects.toMatchObject(denied);
    // With the permission, the review goes on to its first step (here the services that refuse to run).
    await expect(service.reviewUser(reviewer(moderator('BAN_USER')), 'u1', { decision: 'globalBan' })).rejects.toThrow('before its permission');
  });

  it("keeps moderators off network admins' accounts, which admin tokens and network admins may review", async () => {
    const networkAdmin = { id: 'root', kind: 'admin' } as UserRow;
    const service = queue(async () => networkAdmin);
    await expect(service.reviewUser(reviewer(moderator('BAN_USER')), 'root', { decision: 'globalBan' })).rejects.toMatchObject(denied);
    await expect(service.reviewUser(reviewer(moderator('BAN_USER')), 'root', { decision: 'dismiss' })).rejects.toMatchObject(denied);
    // Past the check, the review finds no open flags on this account.
    const admin = { kind: 'user' as const, userId: 'boss', networkAdmin: true, permissions: new Set<Permission>() };
    await expect(service.reviewUser(reviewer(admin), 'root', { decision: 'dismiss' })).rejects.toMatchObject({ kind: 'conflict' });
    await expect(service.reviewUser(reviewer({ kind: 'adminToken', tokenId: 'tok' }), 'root', { decision: 'dismiss' })).rejects.toMatchObject({
      kind: 'conflict',
    });
  });
});
