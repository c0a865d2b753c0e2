import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const MINUTE = 60_000;
/** The sweep looks this often here (30 s in production), so a lift shows within a few looks. */
const SWEEP_MS = 40;

describe.each(testDatabases)('timed bans of the admin API, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let offset = 0;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' }, { validateResponses: true, banLiftIntervalMs: SWEEP_MS });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Moves the server clock forward through the test clock route. */
  async function advance(ms: number): Promise<void> {
    offset += ms;
    const moved = await admin.call('PUT', '/api/v2/test-clock', { offsetMs: offset });
    expect(moved.statusCode, moved.body).toBe(200);
  }

  /** Polls until `check` holds; fails with `what` after 5 s. */
  async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
    const until = Date.now() + 5_000;
    while (!(await check())) {
      if (Date.now() > until) throw new Error(`still not so after 5 s: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, SWEEP_MS));
    }
  }

  async function ok(method: Method, url: string, body?: unknown): Promise<LightMyRequestResponse> {
    const response = await admin.call(method, url, body);
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(200);
    return response;
  }

  async function user(prefix: string, fields: Record<string, unknown> = {}): Promise<string> {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, fields);
    return userId;
  }

  async function channelWith(...userIds: string[]): Promise<string> {
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds });
    return channelId;
  }

  async function globallyBanned(userId: string): Promise<boolean> {
    const found = (await ok('GET', `/api/v2/users?search=${userId}`)).json() as { users: Array<{ info: { userId: string; isGlobalBan: boolean } }> };
    return found.users.find((one) => one.info.userId === userId)?.info.isGlobalBan === true;
  }

  /** The users banned from the channel, as its member list shows them. */
  async function bannedFrom(channelId: string): Promise<string[]> {
    const listed = (await ok('GET', `/api/v2/channel/${channelId}/users?limit=100`)).json() as {
      results: Array<{ channelUser: { userId: string; isBanned: boolean } }>;
    };
    return listed.results.filter((one) => one.channelUser.isBanned).map((one) => one.channelUser.userId);
  }

  const banGlobally = (userId: string, minutes?: number) => ok('POST', '/api/v2/users/ban', { userId, ...(minutes === undefined ? {} : { minutes }) });
  const banFrom = (channelId: string, userIds: string[], minutes?: number) =>
    ok('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds, ...(minutes === undefined ? {} : { minutes }) });

  it('lifts a timed global ban once its minutes are up, not before', async () => {
    const early = await user('early');
    const later = await user('later');
    await banGlobally(early, 10);
    await banGlobally(later, 30);
    expect([await globallyBanned(early), await globallyBanned(later)]).toEqual([true, true]);

    await advance(11 * MINUTE);
    await eventually('the 10-minute ban is lifted', async () => !(await globallyBanned(early)));
    // The sweep that lifted the first left the second, whose time is not up.
    expect(await globallyBanned(later)).toBe(true);
    await advance(20 * MINUTE);
    await eventually('the 30-minute ban is lifted', async () => !(await globallyBanned(later)));
  });

  it('lifts a timed channel ban of several users once its minutes are up; they may rejoin', async () => {
    const [ann, ben, other] = [await user('ann'), await user('ben'), await user('other')];
    const channelId = await channelWith(ann, ben, other);
    await banFrom(channelId, [ann, ben], 20);
    expect((await bannedFrom(channelId)).sort()).toEqual([ann, ben].sort());
    const refused = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [ann] });
    expect(refused.json()).toMatchObject({ status: 'error', code: 400304 });

    await advance(21 * MINUTE);
    await eventually('the channel bans are lifted', async () => (await bannedFrom(channelId)).length === 0);
    await ok('POST', `/api/v2/channel/${channelId}/users`, { userIds: [ann, ben] });
  });

  it('keeps a ban set by hand after a timed one until it is lifted by hand', async () => {
    const [reBanned, reBannedInChannel, control] = [await user('rebanned'), await user('rebanned-channel'), await user('control')];
    const channelId = await channelWith(reBannedInChannel);
    await banGlobally(reBanned, 10);
    await banFrom(channelId, [reBannedInChannel], 10);
    await banGlobally(control, 10);
    await banGlobally(reBanned);
    await banFrom(channelId, [reBannedInChannel]);

    await advance(11 * MINUTE);
    await eventually('the control is lifted', async () => !(await globallyBanned(control)));
    expect(await globallyBanned(reBanned)).toBe(true);
    expect(await bannedFrom(channelId)).toEqual([reBannedInChannel]);
    // Lifted by hand, it is over.
    await ok('POST', '/api/v2/users/unban', { userId: reBanned });
    expect(await globallyBanned(reBanned)).toBe(false);
  });

  it('replaces the end of a timed ban with the end of a later one, shorter or longer', async () => {
    const [shortened, lengthened] = [await user('shortened'), await user('lengthened')];
    await banGlobally(shortened, 60);
    await banGlobally(lengthened, 5);
    await banGlobally(shortened, 5);
    await banGlobally(lengthened, 60);

    await advance(6 * MINUTE);
    await eventually('the shortened ban is lifted', async () => !(await globallyBanned(shortened)));
    expect(await globallyBanned(lengthened)).toBe(true);
    await advance(55 * MINUTE);
    await eventually('the lengthened ban is lifted', async () => !(await globallyBanned(lengthened)));
  });

  it('an unban by hand cancels the lift: a ban set again by other means stays', async () => {
    const target = await user('unbanned');
    const channelId = await channelWith(target);
    await banFrom(channelId, [target], 10);
    await ok('POST', `/api/v2/channel/${channelId}/users/unban`, { userIds: [target] });
    const control = await user('control');
    await banGlobally(control, 10);

    // A moderator of the client API bans them again, for good.
    const role = t.uniqueId('bans');
    await ok('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['BAN_USER_FROM_CHANNEL'] });
    const moderator = await user('mod', { roles: [role] });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: moderator, expiresInMs: 3_600_000 });
    await ok('POST', `/api/v2/channel/${channelId}/users`, { userIds: [moderator] });
    const banned = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/users/ban`,
      headers: { authorization: `Bearer ${token}` },
      payload: { userIds: [target] },
    });
    expect(banned.statusCode, banned.body).toBe(200);

    await advance(11 * MINUTE);
    await eventually('the control is lifted', async () => !(await globallyBanned(control)));
    expect(await bannedFrom(channelId)).toEqual([target]);
  });

  it("a client API moderator's ban cancels the lift of an admin's timed ban", async () => {
    const [target, control] = [await user('target'), await user('control')];
    const channelId = await channelWith(target);
    await banFrom(channelId, [target], 10);
    await banGlobally(target, 10);
    await banGlobally(control, 10);
    const role = t.uniqueId('bans');
    await ok('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['BAN_USER_FROM_CHANNEL', 'BAN_USER'] });
    const moderator = await user('mod', { roles: [role] });
    await ok('POST', `/api/v2/channel/${channelId}/users`, { userIds: [moderator] });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: moderator, expiresInMs: 3_600_000 });
    const as = (url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    expect((await as(`/client/v1/channels/${channelId}/users/ban`, { userIds: [target] })).statusCode).toBe(200);
    expect((await as(`/client/v1/users/${target}/ban`)).statusCode).toBe(200);

    await advance(11 * MINUTE);
    await eventually('the control is lifted', async () => !(await globallyBanned(control)));
    expect(await globallyBanned(target)).toBe(true);
    expect(await bannedFrom(channelId)).toEqual([target]);
  });

  it("lifts a review's timed ban through the same sweep, and a hand ban after the review replaces its end", async () => {
    const [reviewed, reviewedThenHand, flagger] = [await user('reviewed'), await user('reviewed-hand'), await user('flagger')];
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId: flagger, expiresInMs: 3_600_000 });
    for (const target of [reviewed, reviewedThenHand]) {
      const flagged = await t.app.inject({ method: 'POST', url: `/client/v1/users/${target}/flag`, headers: { authorization: `Bearer ${token}` } });
      expect(flagged.statusCode, flagged.body).toBe(200);
      await ok('POST', `/api/v2/moderation/users/${target}/review`, { decision: 'globalBan', minutes: 30 });
    }
    // The hand's ban is for 90 minutes: the review's 30 no longer apply.
    await banGlobally(reviewedThenHand, 90);

    await advance(31 * MINUTE);
    await eventually("the review's ban is lifted", async () => !(await globallyBanned(reviewed)));
    expect(await globallyBanned(reviewedThenHand)).toBe(true);
    await advance(60 * MINUTE);
    await eventually("the hand's ban is lifted", async () => !(await globallyBanned(reviewedThenHand)));
  });

  it('takes minutes as a form field too', async () => {
    const target = await user('form');
    const banned = await admin.form('POST', '/api/v2/users/ban', `userId=${target}&minutes=15`);
    expect(banned.statusCode, banned.body).toBe(200);
    await advance(16 * MINUTE);
    await eventually('the ban is lifted', async () => !(await globallyBanned(target)));
  });

  it('refuses minutes that are not a whole number from 1 to 525600 with a 422, and bans nobody', async () => {
    const target = await user('refused');
    const channelId = await channelWith(target);
    for (const minutes of [0, -5, 525_601, 1.5, 'soon']) {
      for (const [url, body] of [
        ['/api/v2/users/ban', { userId: target, minutes }],
        [`/api/v2/channel/${channelId}/users/ban`, { userIds: [target], minutes }],
      ] as const) {
        const refused = await admin.call('POST', url, body);
        expect(refused.statusCode, `${url} ${JSON.stringify(minutes)}`).toBe(422);
        expect(refused.json()).toMatchObject({ status: 'error', code: 500000, data: { detail: [expect.stringMatching(/^body\.minutes: /)] } });
      }
    }
    expect(await globallyBanned(target)).toBe(false);
    expect(await bannedFrom(channelId)).toEqual([]);
    // The longest one is a year.
    await banGlobally(target, 525_600);
    expect(await globallyBanned(target)).toBe(true);
  });

  it("erasing a user removes their bans' scheduled lifts", async () => {
    const [erased, kept] = [await user('erased'), await user('kept')];
    const channelId = await channelWith(erased, kept);
    await banFrom(channelId, [erased, kept], 10);
    await banGlobally(erased, 10);
    const liftsOf = async (userId: string) => (await t.storage.db.selectFrom('ban_lifts').select('channel_id').where('user_id', '=', userId).execute()).length;
    expect([await liftsOf(erased), await liftsOf(kept)]).toEqual([2, 1]);

    await ok('DELETE', `/api/v2/users/${erased}?messages=delete`);
    expect([await liftsOf(erased), await liftsOf(kept)]).toEqual([0, 1]);
  });
});
