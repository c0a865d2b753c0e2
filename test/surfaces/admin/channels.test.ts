import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('channels admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1' });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function channelOf(channelId: string) {
    const response = await admin.call('POST', '/api/v2/channels', { tags: [channelId] });
    const found = response.json().results.find((result: { channel: { channelId: string } }) => result.channel.channelId === channelId);
    return found?.channel;
  }

  async function memberIdsOf(channelId: string, userIds: string[]) {
    const members: string[] = [];
    for (const userId of userIds) {
      const response = await admin.call('POST', '/api/v2/channels', { userId, tags: [channelId] });
      if (response.json().results.length > 0) members.push(userId);
    }
    return members;
  }

  it('creates a channel with members, tags and metadata; the admin joins it', async () => {
    const alice = t.uniqueId('alice');
    await admin.createUser(alice, { displayName: 'Alice' });
    const channelId = t.uniqueId('general');
    const response = await admin.call('POST', '/api/v2/channel', {
      channelId,
      type: 'standard',
      displayName: 'General',
      metadata: { topic: 'all hands' },
      tags: [channelId, 'team'],
      userIds: [alice],
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(body.channel).toMatchObject({
      channelId,
      type: 'standard',
      displayName: 'General',
      metadata: { topic: 'all hands' },
      tags: [channelId, 'team'],
      isMuted: false,
      muteTimeout: null,
      isClosed: false,
      memberCount: 2,
      messageCount: 0,
    });
    expect(Date.parse(body.channel.createdAt)).not.toBeNaN();
    expect(body.channelUser).toMatchObject({ userId: 'admin-env', channelId, membership: 'member', isBanned: false, isMuted: false });
  });

  it('accepts the form encoding the contract lists (docs/contract.md, Requests) with nested keys, arrays and JSON in a field', async () => {
    const bob = t.uniqueId('bob');
    const carol = t.uniqueId('carol');
    await admin.createUser(bob);
    await admin.createUser(carol);
    const channelId = t.uniqueId('form');
    const response = await admin.form(
      'POST',
      '/api/v2/channel',
      `channelId=${channelId}&type=standard&userIds[]=${bob}&userIds[]=${carol}&tags=${channelId}&metadata=${encodeURIComponent('{"a":{"b":1}}')}`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().channel).toMatchObject({ memberCount: 3, metadata: { a: { b: 1 } }, tags: [channelId] });

    const indexed = await admin.form('POST', '/api/v2/channel', `channelId=${channelId}-2&type=standard&userIds[0]=${bob}&metadata[k]=v`);
    expect(indexed.statusCode).toBe(200);
    expect(indexed.json().channel).toMatchObject({ memberCount: 2, metadata: { k: 'v' } });
  });

  it('lists channels for a query with no body, an empty JSON body or an empty form, all fields being optional', async () => {
    const channelId = t.uniqueId('listed');
    await admin.createChannel(channelId);
    const headers = { authorization: `Bearer ${t.adminToken}` };
    for (const [label, extra] of [
      ['no body', {}],
      ['empty JSON', { headers: { ...headers, 'content-type': 'application/json' }, payload: '' }],
      ['empty form', { headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }],
    ] as const) {
      const response = await t.app.inject({ method: 'POST', url: '/api/v2/channels', headers, ...extra });
      expect({ label, status: response.statusCode }).toEqual({ label, status: 200 });
      expect(Array.isArray(response.json().results)).toBe(true);
    }
    // A route whose body has required fields still says which one is missing.
    const create = await t.app.inject({ method: 'POST', url: '/api/v2/channel', headers: { ...headers, 'content-type': 'application/json' }, payload: '' });
    expect(create.statusCode).toBeGreaterThanOrEqual(400);
    expect(create.statusCode).toBeLessThan(500);
  });

  it('refuses a taken channelId with 409 / 400315', async () => {
    const channelId = t.uniqueId('dup');
    await admin.createChannel(channelId);
    const again = await admin.call('POST', '/api/v2/channel', { channelId, type: 'standard' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ status: 'error', code: 400315 });
  });

  it('rejects bad input with clear 4xx errors and stores nothing', async () => {
    const missing = await admin.call('POST', '/api/v2/channel', { type: 'standard' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ code: 500000, data: { fields: [{ field: 'body.channelId' }] } });

    const badEnum = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('x'), type: 'broadcast' });
    expect(badEnum.statusCode).toBe(400);
    expect(badEnum.json()).toMatchObject({ code: 400000, data: { fields: [{ field: 'body.type' }] } });

    const wrongType = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('x'), type: 'standard', metadata: 'not an object' });
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json().data.fields[0].field).toBe('body.metadata');

    const tooMany = await admin.call('POST', '/api/v2/channel', {
      channelId: t.uniqueId('x'),
      type: 'standard',
      userIds: Array.from({ length: 101 }, (_, i) => `u${i}`),
    });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().data.fields[0].field).toBe('body.userIds');

    const longId = await admin.call('POST', '/api/v2/channel', { channelId: 'x'.repeat(51), type: 'standard' });
    expect(longId.statusCode).toBe(422);

    const malformedJson = await admin.call('POST', '/api/v2/channel', '{"channelId":', { 'content-type': 'application/json' });
    expect(malformedJson.statusCode).toBe(400);
    expect(malformedJson.json()).toMatchObject({ status: 'error', code: 400000 });

    const malformedForm = await admin.form('POST', '/api/v2/channel', 'channelId=%E0%A4%A&type=standard');
    expect(malformedForm.statusCode).toBeGreaterThanOrEqual(400);
    expect(malformedForm.statusCode).toBeLessThan(500);

    const wrongContentType = await admin.call('POST', '/api/v2/channel', 'channelId=x', { 'content-type': 'text/plain' });
    expect(wrongContentType.statusCode).toBe(400);
    expect(wrongContentType.json().code).toBe(400000);

    const unknownUser = await admin.call('POST', '/api/v2/channel', { channelId: t.uniqueId('x'), type: 'standard', userIds: ['nobody-here'] });
    expect(unknownUser.statusCode).toBe(404);
    expect(unknownUser.json().code).toBe(400400);

    const list = await admin.call('POST', '/api/v2/channels', { tags: ['x'] });
    expect(list.json().results).toEqual([]);
  });

  it('renames a channel', async () => {
    const channelId = t.uniqueId('rename');
    await admin.createChannel(channelId, { tags: [channelId] });
    const response = await admin.form('POST', '/api/v2/channel/displayName', `channelId=${channelId}&displayName=New%20name`);
    expect(response.statusCode).toBe(200);
    expect((await channelOf(channelId)).displayName).toBe('New name');
    const unknown = await admin.call('POST', '/api/v2/channel/displayName', { channelId: 'no-such-channel', displayName: 'x' });
    expect(unknown.statusCode).toBe(404);
  });

  it('adds and removes members and keeps memberCount exact', async () => {
    const users = [t.uniqueId('m'), t.uniqueId('m'), t.uniqueId('m')];
    for (const user of users) await admin.createUser(user);
    const channelId = t.uniqueId('members');
    await admin.createChannel(channelId, { tags: [channelId] });

    const add = await admin.form('POST', `/api/v2/channel/${channelId}/users`, users.map((u) => `userIds=${u}`).join('&'));
    expect(add.statusCode).toBe(200);
    expect(add.json()).toEqual({ status: 'success' });
    const again = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: users });
    expect(again.statusCode).toBe(200);
    expect((await channelOf(channelId)).memberCount).toBe(4);

    const remove = await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [users[0], 'not-a-member'] });
    expect(remove.statusCode).toBe(200);
    expect((await channelOf(channelId)).memberCount).toBe(3);
    expect(await memberIdsOf(channelId, users)).toEqual(users.slice(1));

    const emptyList = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [] });
    expect(emptyList.statusCode).toBe(422);
    const missingChannel = await admin.call('POST', '/api/v2/channel/nope-nope/users', { userIds: users });
    expect(missingChannel.statusCode).toBe(404);
  });

  it('keeps memberCount exact under concurrent adds and removes', async () => {
    const users = Array.from({ length: 30 }, () => t.uniqueId('c'));
    for (const user of users) await admin.createUser(user);
    const channelId = t.uniqueId('concurrent');
    await admin.createChannel(channelId, { tags: [channelId] });
    // Every user is added twice at once; the first ten are then removed twice at once.
    await Promise.all(users.flatMap((user) => [user, user].map((u) => admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [u] }))));
    await Promise.all(
      users.slice(0, 10).flatMap((user) => [user, user].map((u) => admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [u] }))),
    );
    expect((await channelOf(channelId)).memberCount).toBe(1 + 20);
  });

  it('mutes and unmutes a channel, and the mute ends by itself when its time passes', async () => {
    const channelId = t.uniqueId('mute');
    await admin.createChannel(channelId, { tags: [channelId] });
    const mute = await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 60_000 });
    expect(mute.statusCode).toBe(200);
    expect(mute.json()).toEqual({ success: true });
    const muted = await channelOf(channelId);
    expect(muted.isMuted).toBe(true);
    expect(Date.parse(muted.muteTimeout) - Date.now()).toBeGreaterThan(50_000);

    const clock = await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 61_000 });
    expect(clock.statusCode).toBe(200);
    expect(clock.json().now).toBeGreaterThan(Date.now() + 60_000);
    expect((await channelOf(channelId)).isMuted).toBe(false);
    await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 0 });

    await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 60_000 });
    const unmute = await admin.form('PUT', `/api/v2/channel/${channelId}/mute`, 'mutePeriod=0');
    expect(unmute.statusCode).toBe(200);
    expect((await channelOf(channelId)).isMuted).toBe(false);

    const negative = await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: -1 });
    expect(negative.statusCode).toBe(422);
    const notNumber = await admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 'soon' });
    expect(notNumber.statusCode).toBe(422);
  });

  it('mutes and unmutes members of a channel', async () => {
    const dave = t.uniqueId('dave');
    await admin.createUser(dave);
    const channelId = t.uniqueId('usermute');
    await admin.createChannel(channelId, { userIds: [dave] });
    const mute = await admin.form('PUT', `/api/v2/channel/${channelId}/users/mute`, `mutePeriod=30000&userIds=${dave}`);
    expect(mute.statusCode).toBe(200);
    expect(mute.json()).toEqual({ success: true });
    const muted = await admin.call('POST', '/api/v2/channels', { userId: dave });
    const membership = muted.json().results.find((r: { channel: { channelId: string } }) => r.channel.channelId === channelId).channelUser;
    expect(membership).toMatchObject({ userId: dave, isMuted: true });
    expect(membership.muteTimeout).not.toBeNull();

    await admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { mutePeriod: 0, userIds: [dave] });
    const unmuted = await admin.call('POST', '/api/v2/channels', { userId: dave });
    expect(unmuted.json().results.find((r: { channel: { channelId: string } }) => r.channel.channelId === channelId).channelUser.isMuted).toBe(false);

    const outsider = await admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { mutePeriod: 10, userIds: ['admin-outsider'] });
    expect(outsider.statusCode).toBe(404);
  });

  it('bans: a banned user leaves, cannot be added back until unbanned, and a second unban is 409 / 400316', async () => {
    const eve = t.uniqueId('eve');
    await admin.createUser(eve);
    const channelId = t.uniqueId('ban');
    await admin.createChannel(channelId, { userIds: [eve], tags: [channelId] });
    expect((await channelOf(channelId)).memberCount).toBe(2);

    const ban = await admin.form('POST', `/api/v2/channel/${channelId}/users/ban`, `userIds=${eve}`);
    expect(ban.statusCode).toBe(200);
    expect(ban.json()).toEqual({ status: 'success' });
    expect((await channelOf(channelId)).memberCount).toBe(1);

    const addBack = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [eve] });
    expect(addBack.statusCode).toBe(403);
    expect(addBack.json().code).toBe(400304);

    const unban = await admin.call('POST', `/api/v2/channel/${channelId}/users/unban`, { userIds: [eve] });
    expect(unban.statusCode).toBe(200);
    const unbanAgain = await admin.call('POST', `/api/v2/channel/${channelId}/users/unban`, { userIds: [eve] });
    expect(unbanAgain.statusCode).toBe(409);
    expect(unbanAgain.json().code).toBe(400316);

    const addAfterUnban = await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [eve] });
    expect(addAfterUnban.statusCode).toBe(200);
    expect((await channelOf(channelId)).memberCount).toBe(2);
  });

  it('closes a channel irreversibly: members removed, every later change is 409 / 400900', async () => {
    const frank = t.uniqueId('frank');
    await admin.createUser(frank);
    const channelId = t.uniqueId('close');
    await admin.createChannel(channelId, { userIds: [frank], tags: [channelId] });
    const close = await admin.form('POST', `/api/v2/channel/${channelId}/close`, '');
    expect(close.statusCode).toBe(200);
    expect(close.json()).toEqual({ status: 'success' });
    const closed = await channelOf(channelId);
    expect(closed).toMatchObject({ isClosed: true, memberCount: 0 });
    expect(await memberIdsOf(channelId, [frank])).toEqual([]);

    const attempts = [
      admin.call('POST', '/api/v2/channel/displayName', { channelId, displayName: 'x' }),
      admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [frank] }),
      admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [frank] }),
      admin.call('PUT', `/api/v2/channel/${channelId}/mute`, { mutePeriod: 10 }),
      admin.call('PUT', `/api/v2/channel/${channelId}/users/mute`, { mutePeriod: 10, userIds: [frank] }),
      admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [frank] }),
      admin.call('POST', `/api/v2/channel/${channelId}/users/unban`, { userIds: [frank] }),
      admin.call('POST', `/api/v2/channel/${channelId}/close`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode).toBe(409);
      expect(response.json().code).toBe(400900);
    }
  });

  it('queries by membership filter, userId, tags and excludeTags', async () => {
    const tag = t.uniqueId('q');
    const gina = t.uniqueId('gina');
    await admin.createUser(gina);
    await admin.createChannel(`${tag}-a`, { tags: [tag, 'red'], userIds: [gina] });
    await admin.createChannel(`${tag}-b`, { tags: [tag, 'blue'] });
    // A channel the admin is not a member of: created, then the admin removes itself.
    await admin.createChannel(`${tag}-c`, { tags: [tag] });
    await admin.call('DELETE', `/api/v2/channel/${tag}-c/users`, { userIds: ['admin-env'] });

    const ids = async (body: Record<string, unknown>) =>
      (await admin.call('POST', '/api/v2/channels', { tags: [tag], ...body }))
        .json()
        .results.map((r: { channel: { channelId: string } }) => r.channel.channelId)
        .sort();

    expect(await ids({})).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    expect(await ids({ filter: 'member' })).toEqual([`${tag}-a`, `${tag}-b`]);
    expect(await ids({ filter: 'notMember' })).toEqual([`${tag}-c`]);
    expect(await ids({ userId: gina })).toEqual([`${tag}-a`]);
    // Both at once: gina's channels, narrowed by the admin's own membership.
    expect(await ids({ userId: gina, filter: 'member' })).toEqual([`${tag}-a`]);
    expect(await ids({ userId: gina, filter: 'notMember' })).toEqual([]);
    expect(await ids({ excludeTags: ['red'] })).toEqual([`${tag}-b`, `${tag}-c`]);
    const anyOf = await admin.call('POST', '/api/v2/channels', { tags: ['red', 'blue'], excludeTags: ['nothing'] });
    expect(
      anyOf
        .json()
        .results.map((r: { channel: { channelId: string } }) => r.channel.channelId)
        .sort(),
    ).toEqual(expect.arrayContaining([`${tag}-a`, `${tag}-b`]));

    const asGina = await admin.call('POST', '/api/v2/channels', { userId: gina, tags: [tag] });
    expect(asGina.json().results[0].channelUser).toMatchObject({ userId: gina, membership: 'member' });
    const notMember = await admin.call('POST', '/api/v2/channels', { filter: 'notMember', tags: [tag] });
    expect(notMember.json().results[0].channelUser).toBeNull();

    const badFilter = await admin.call('POST', '/api/v2/channels', { filter: 'friends' });
    expect(badFilter.statusCode).toBe(400);
  });

  it('pages forwards and backwards with tokens and skip, never repeating or skipping', async () => {
    const tag = t.uniqueId('page');
    const created: string[] = [];
    for (let i = 0; i < 25; i++) {
      const id = `${tag}-${String(i).padStart(2, '0')}`;
      await admin.createChannel(id, { tags: [tag] });
      created.push(id);
    }
    const seen: string[] = [];
    let token: string | null = null;
    const tokens: string[] = [];
    do {
      const page: { results: { channel: { channelId: string } }[]; paging: { next: string | null; prev: string | null } } = (
        await admin.call('POST', '/api/v2/channels', { tags: [tag], options: { limit: 10, ...(token ? { token } : {}) } })
      ).json();
      seen.push(...page.results.map((r) => r.channel.channelId));
      if (token) tokens.push(token);
      token = page.paging.next;
      if (tokens.length === 0) expect(page.paging.prev).toBeNull();
    } while (token);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect([...seen].sort()).toEqual(created);

    // From the third page back to the second.
    const third = (await admin.call('POST', '/api/v2/channels', { tags: [tag], options: { limit: 10, token: tokens[1] } })).json();
    expect(third.results).toHaveLength(5);
    const second = (await admin.call('POST', '/api/v2/channels', { tags: [tag], options: { limit: 10, token: third.paging.prev } })).json();
    expect(second.results.map((r: { channel: { channelId: string } }) => r.channel.channelId)).toEqual(seen.slice(10, 20));

    const skipped = (await admin.call('POST', '/api/v2/channels', { tags: [tag], options: { limit: 5, skip: 20 } })).json();
    expect(skipped.results.map((r: { channel: { channelId: string } }) => r.channel.channelId)).toEqual(seen.slice(20, 25));

    const altered = `${tokens[0]?.slice(0, -2)}xx`;
    const tampered = await admin.call('POST', '/api/v2/channels', { tags: [tag], options: { token: altered } });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json()).toMatchObject({ code: 400000, message: 'Query token is invalid.' });

    const formPage = await admin.form('POST', '/api/v2/channels', `tags[]=${tag}&options[limit]=3`);
    expect(formPage.json().results).toHaveLength(3);
  });
});
