import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('client API: joining and leaving channels on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} display` });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: 'GET' | 'POST', url: string) => t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });
    return { userId, as };
  }

  const refusal = (response: { statusCode: number; json(): { code: number } }) => ({ status: response.statusCode, code: response.json().code });

  /** The membership events of a channel, oldest first, as the stream and webhooks get them. */
  async function memberEvents(channelId: string) {
    const rows = await t.storage.db
      .selectFrom('outbox')
      .select(['type', 'user_id', 'payload'])
      .where('channel_id', '=', channelId)
      .where('type', 'in', ['member.added', 'member.removed'])
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ type: row.type, actor: row.user_id, userIds: (JSON.parse(row.payload) as { userIds: string[] }).userIds }));
  }

  it('sets joinable on create and through the update route, and shows it in channel records', async () => {
    const open = t.uniqueId('open');
    const created = await admin.createChannel(open, { joinable: true });
    expect(created.channel).toMatchObject({ channelId: open, joinable: true });
    const plain = t.uniqueId('plain');
    expect((await admin.createChannel(plain)).channel.joinable).toBe(false);

    const opened = await admin.call('PUT', `/api/v2/channel/${plain}`, { joinable: true });
    expect(opened.statusCode).toBe(200);
    expect(opened.json()).toMatchObject({ channelId: plain, joinable: true });
    // A form carries booleans as text (docs/contract.md, Requests), and the display name changes with it.
    const renamed = await admin.form('PUT', `/api/v2/channel/${plain}`, 'joinable=false&displayName=Plain');
    expect(renamed.json()).toMatchObject({ joinable: false, displayName: 'Plain' });
    const listed = await admin.call('POST', '/api/v2/channels', { tags: [] });
    const records = (listed.json() as { results: Array<{ channel: { channelId: string; joinable: boolean } }> }).results.map((result) => result.channel);
    expect(records.find((record) => record.channelId === open)?.joinable).toBe(true);
    expect(records.find((record) => record.channelId === plain)?.joinable).toBe(false);

    expect((await admin.call('PUT', `/api/v2/channel/${plain}`, {})).statusCode).toBe(422);
    expect(refusal(await admin.call('PUT', `/api/v2/channel/${t.uniqueId('missing')}`, { joinable: true }))).toEqual({ status: 404, code: 400400 });
    await admin.call('POST', `/api/v2/channel/${plain}/close`);
    expect(refusal(await admin.call('PUT', `/api/v2/channel/${plain}`, { joinable: true }))).toEqual({ status: 409, code: 400900 });
  });

  it('lets a user join a joinable channel once, told as member.added, and leave it, told as member.removed', async () => {
    const ann = await userWithToken('ann');
    const bob = await userWithToken('bob');
    const channelId = t.uniqueId('lounge');
    await admin.createChannel(channelId, { joinable: true, userIds: [bob.userId] });

    const joined = await ann.as('POST', `/client/v1/channels/${channelId}/join`);
    expect(joined.statusCode).toBe(200);
    expect(joined.json()).toMatchObject({
      channel: { channelId, joinable: true, memberCount: 3 },
      channelUser: { userId: ann.userId, channelId, membership: 'member', isBanned: false },
    });
    // Joining again changes nothing: no second member, no second event.
    const again = await ann.as('POST', `/client/v1/channels/${channelId}/join`);
    expect(again.statusCode).toBe(200);
    expect(again.json().channel.memberCount).toBe(3);
    const mine = (await ann.as('GET', '/client/v1/channels')).json() as { channels: Array<{ channel: { channelId: string; joinable: boolean } }> };
    expect(mine.channels.map((entry) => entry.channel)).toEqual([expect.objectContaining({ channelId, joinable: true })]);
    // A member may read and send.
    expect((await ann.as('GET', `/client/v1/channels/${channelId}/messages`)).statusCode).toBe(200);

    const left = await ann.as('POST', `/client/v1/channels/${channelId}/leave`);
    expect(left.statusCode).toBe(200);
    expect(left.json()).toMatchObject({ status: 'success', channel: { channelId, memberCount: 2 } });
    expect(refusal(await ann.as('GET', `/client/v1/channels/${channelId}/messages`))).toEqual({ status: 403, code: 400301 });
    // Not a member any more: leaving again is a 404.
    expect(refusal(await ann.as('POST', `/client/v1/channels/${channelId}/leave`))).toEqual({ status: 404, code: 400400 });

    expect((await memberEvents(channelId)).slice(1)).toEqual([
      { type: 'member.added', actor: ann.userId, userIds: [ann.userId] },
      { type: 'member.removed', actor: ann.userId, userIds: [ann.userId] },
    ]);
  });

  it('refuses to join a channel that is missing, a conversation, closed, not joinable, or that bans the user', async () => {
    const cid = await userWithToken('cid');
    expect(refusal(await cid.as('POST', `/client/v1/channels/${t.uniqueId('nowhere')}/join`))).toEqual({ status: 404, code: 400400 });

    const closed = t.uniqueId('closed');
    await admin.createChannel(closed, { joinable: true });
    await admin.call('POST', `/api/v2/channel/${closed}/close`);
    expect(refusal(await cid.as('POST', `/client/v1/channels/${closed}/join`))).toEqual({ status: 409, code: 400900 });

    const invited = t.uniqueId('invited');
    await admin.createChannel(invited);
    const notJoinable = await cid.as('POST', `/client/v1/channels/${invited}/join`);
    expect(refusal(notJoinable)).toEqual({ status: 403, code: 400301 });
    // A channel opened later may be joined.
    await admin.call('PUT', `/api/v2/channel/${invited}`, { joinable: true });
    expect((await cid.as('POST', `/client/v1/channels/${invited}/join`)).statusCode).toBe(200);

    const strict = t.uniqueId('strict');
    await admin.createChannel(strict, { joinable: true, userIds: [cid.userId] });
    await admin.call('POST', `/api/v2/channel/${strict}/users/ban`, { userIds: [cid.userId] });
    expect(refusal(await cid.as('POST', `/client/v1/channels/${strict}/join`))).toEqual({ status: 403, code: 400304 });
    // Banned is no membership to end either.
    expect(refusal(await cid.as('POST', `/client/v1/channels/${strict}/leave`))).toEqual({ status: 404, code: 400400 });
    expect((await memberEvents(strict)).filter((event) => event.actor === cid.userId)).toEqual([]);
  });

  it("keeps a bot's conversation out of reach: joining or leaving it answers as for a missing channel", async () => {
    const dee = await userWithToken('dee');
    const bot = await admin.call('POST', '/api/v2/bots', { displayName: 'Helper' });
    expect(bot.statusCode).toBe(200);
    const botId = (bot.json() as { userId: string }).userId;
    const conversationId = t.uniqueId('conversation');
    // A conversation made straight in the database, open to joining, so only its type keeps users out.
    await t.storage.db
      .insertInto('channels')
      .values({
        id: conversationId,
        type: 'conversation',
        display_name: null,
        metadata: JSON.stringify({ botId, userId: dee.userId }),
        tags: '[]',
        is_closed: 0,
        joinable: 1,
        mute_until: null,
        member_count: 0,
        message_count: 0,
        last_segment: 0,
        last_activity: null,
        created_at: Date.now(),
        updated_at: Date.now(),
      })
      .execute();
    expect(refusal(await dee.as('POST', `/client/v1/channels/${conversationId}/join`))).toEqual({ status: 404, code: 400400 });
    expect(refusal(await dee.as('POST', `/client/v1/channels/${conversationId}/leave`))).toEqual({ status: 404, code: 400400 });
  });

  it('keeps memberCount exact when many users join and leave at once', async () => {
    const channelId = t.uniqueId('busy');
    await admin.createChannel(channelId, { joinable: true });
    const users = await Promise.all(Array.from({ length: 8 }, (_, index) => userWithToken(`u${index}`)));
    const joins = await Promise.all(
      users.flatMap((user) => [user.as('POST', `/client/v1/channels/${channelId}/join`), user.as('POST', `/client/v1/channels/${channelId}/join`)]),
    );
    expect(joins.map((response) => response.statusCode)).toEqual(joins.map(() => 200));
    const leaves = await Promise.all(users.slice(0, 3).map((user) => user.as('POST', `/client/v1/channels/${channelId}/leave`)));
    expect(leaves.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    // One member.added per user, whichever of their two joins came first.
    const joiners = new Set(users.map((user) => user.userId));
    const added = (await memberEvents(channelId)).filter((event) => event.type === 'member.added' && joiners.has(event.actor ?? ''));
    expect(added.map((event) => event.actor).sort()).toEqual([...joiners].sort());
    const countOf = async () =>
      (await t.storage.db.selectFrom('channels').select('member_count').where('id', '=', channelId).executeTakeFirstOrThrow()).member_count;
    // The creating admin and the five who stayed.
    expect(await countOf()).toBe(1 + 5);
  });
});
