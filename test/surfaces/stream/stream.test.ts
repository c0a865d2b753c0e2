import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRealtimeStore } from '../../../src/modules/realtime/realtime.store.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

interface Frame {
  id: number;
  type: string;
  data: { channelId?: string; userIds?: string[]; channel?: { channelId: string; displayName: string; isClosed: boolean } };
}

/** A stream client that records frames and can wait for a condition. */
function openStream(
  url: string,
): Promise<{ socket: WebSocket; frames: Frame[]; waitFor: (test: (frames: Frame[]) => boolean, ms?: number) => Promise<void>; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const frames: Frame[] = [];
    const closed = new Promise<number>((done) => socket.on('close', (code) => done(code)));
    const waitFor = (test: (frames: Frame[]) => boolean, ms = 5000) =>
      new Promise<void>((done, fail) => {
        if (test(frames)) return done();
        const timer = setTimeout(() => fail(new Error(`timed out; frames: ${JSON.stringify(frames.map((f) => [f.id, f.type]))}`)), ms);
        const check = () => {
          if (test(frames)) {
            clearTimeout(timer);
            socket.off('message', check);
            done();
          }
        };
        socket.on('message', check);
      });
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Frame));
    socket.on('open', () => resolve({ socket, frames, waitFor, closed }));
    socket.on('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
    socket.on('error', reject);
  });
}

describe.each(testDatabases)('real-time stream on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { gateway: { heartbeatMs: 100 } });
    admin = adminClient(t);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = address.replace('http', 'ws');
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const issued = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    return { userId, token: issued.token };
  }

  it('refuses a missing, unknown or admin token before the upgrade', async () => {
    await expect(openStream(`${base}/client/v1/stream`)).rejects.toThrow('HTTP 401');
    await expect(openStream(`${base}/client/v1/stream?token=nope`)).rejects.toThrow('HTTP 401');
    await expect(openStream(`${base}/client/v1/stream?token=${t.adminToken}`)).rejects.toThrow('HTTP 403');
  });

  it('refuses a globally banned user with 403', async () => {
    const user = await userWithToken('banned');
    await admin.call('POST', '/api/v2/users/ban', { userId: user.userId });
    await expect(openStream(`${base}/client/v1/stream?token=${user.token}`)).rejects.toThrow('HTTP 403');
  });

  it("delivers the events of the user's channels, and only those, with increasing ids", async () => {
    const kim = await userWithToken('kim');
    const stream = await openStream(`${base}/client/v1/stream?token=${kim.token}`);
    const mine = t.uniqueId('mine');
    const other = t.uniqueId('other');
    await admin.createChannel(other);
    await admin.createChannel(mine, { userIds: [kim.userId] });
    await admin.call('POST', '/api/v2/channel/displayName', { channelId: other, displayName: 'not for kim' });
    await admin.call('POST', '/api/v2/channel/displayName', { channelId: mine, displayName: 'for kim' });
    await stream.waitFor((frames) => frames.some((f) => f.type === 'channel.updated' && f.data.channel?.displayName === 'for kim'));
    expect(stream.frames.map((f) => f.type)).toEqual(['member.added', 'channel.updated']);
    expect(stream.frames.every((f) => f.data.channelId === mine || f.data.channel?.channelId === mine)).toBe(true);
    expect(stream.frames[1]?.id).toBeGreaterThan(stream.frames[0]?.id ?? Infinity);

    await admin.call('DELETE', `/api/v2/channel/${mine}/users`, { userIds: [kim.userId] });
    await stream.waitFor((frames) => frames.some((f) => f.type === 'member.removed'));
    await admin.call('POST', '/api/v2/channel/displayName', { channelId: mine, displayName: 'after kim left' });
    // A marker in a channel kim is in proves the stream is still flowing when we look.
    const marker = t.uniqueId('marker');
    await admin.createChannel(marker, { userIds: [kim.userId] });
    await stream.waitFor((frames) => frames.some((f) => f.data.channelId === marker));
    expect(stream.frames.some((f) => f.data.channel?.displayName === 'after kim left')).toBe(false);
    stream.socket.close();
  });

  it('resumes after a cut: a reconnect with since gets exactly what was missed, in order', async () => {
    const lee = await userWithToken('lee');
    const channelId = t.uniqueId('resume');
    await admin.createChannel(channelId, { userIds: [lee.userId] });
    // The channel's own events are relayed before the stream opens, so its first frames are the renames
    // (a stream starts at the relay's position: an event still on its way would arrive as a frame too).
    await t.events.relay.flush();
    const first = await openStream(`${base}/client/v1/stream?token=${lee.token}`);
    const renames = Array.from({ length: 30 }, (_, i) => `name ${i}`);
    // Messages keep flowing while the socket is cut part-way through.
    const flow = (async () => {
      for (const name of renames) await admin.call('POST', '/api/v2/channel/displayName', { channelId, displayName: name });
    })();
    await first.waitFor((frames) => frames.length >= 5);
    first.socket.terminate();
    await flow;
    const lastSeen = first.frames[first.frames.length - 1]?.id as number;
    const seenNames = first.frames.map((f) => f.data.channel?.displayName);

    const second = await openStream(`${base}/client/v1/stream?token=${lee.token}&since=${lastSeen}`);
    await second.waitFor((frames) => frames.some((f) => f.data.channel?.displayName === 'name 29'));
    const all = [...seenNames, ...second.frames.map((f) => f.data.channel?.displayName)];
    expect(all).toEqual(renames);
    const ids = [...first.frames, ...second.frames].map((f) => f.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    second.socket.close();
  });

  it('tells a user who was offline that they were removed from a channel, or banned from one', async () => {
    const [kim, ola] = [await userWithToken('kim'), await userWithToken('ola')];
    const [removedFrom, bannedFrom, elsewhere] = [t.uniqueId('left'), t.uniqueId('banned'), t.uniqueId('other')];
    for (const channelId of [removedFrom, bannedFrom]) await admin.createChannel(channelId, { userIds: [kim.userId, ola.userId] });
    await admin.createChannel(elsewhere, { userIds: [ola.userId] });
    await t.events.relay.flush();
    const since = Number(
      (
        await t.storage.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirstOrThrow()
      ).max,
    );
    // Kim is offline for all of this.
    await admin.call('DELETE', `/api/v2/channel/${removedFrom}/users`, { userIds: [kim.userId] });
    expect((await admin.call('POST', `/api/v2/channel/${bannedFrom}/users/ban`, { userIds: [kim.userId] })).statusCode).toBe(200);
    await admin.call('DELETE', `/api/v2/channel/${elsewhere}/users`, { userIds: [ola.userId] });
    await admin.call('POST', '/api/v2/channel/displayName', { channelId: removedFrom, displayName: 'after kim left' });
    await admin.call('POST', '/api/v2/message', { channelId: bannedFrom, type: 'text', data: { text: 'after kim was banned' } });
    // A channel Kim joins afterwards marks the end of the replay.
    const markId = t.uniqueId('mark');
    await admin.createChannel(markId, { userIds: [kim.userId] });

    const stream = await openStream(`${base}/client/v1/stream?token=${kim.token}&since=${since}`);
    await stream.waitFor((frames) => frames.some((frame) => frame.type === 'member.added'));
    expect(stream.frames.map((frame) => [frame.type, frame.data.channelId, frame.data.userIds])).toEqual([
      ['member.removed', removedFrom, [kim.userId]],
      ['member.removed', bannedFrom, [kim.userId]],
      ['member.added', markId, expect.arrayContaining([kim.userId])],
    ]);
    stream.socket.close();
  });

  it('tells a user who was offline that a channel of theirs was closed; a connected member gets the close and their own removal', async () => {
    const [kim, ola] = [await userWithToken('kim'), await userWithToken('ola')];
    const closing = t.uniqueId('closing');
    await admin.createChannel(closing, { userIds: [kim.userId, ola.userId] });
    await t.events.relay.flush();
    const since = Number(
      (
        await t.storage.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirstOrThrow()
      ).max,
    );
    const olaStream = await openStream(`${base}/client/v1/stream?token=${ola.token}`);
    // Kim is offline while the channel closes.
    expect((await admin.call('POST', `/api/v2/channel/${closing}/close`)).statusCode).toBe(200);
    const markId = t.uniqueId('mark');
    await admin.createChannel(markId, { userIds: [kim.userId, ola.userId] });

    const stream = await openStream(`${base}/client/v1/stream?token=${kim.token}&since=${since}`);
    await stream.waitFor((frames) => frames.some((frame) => frame.type === 'member.added'));
    expect(stream.frames.map((frame) => [frame.type, frame.data.channelId, frame.data.channel?.isClosed])).toEqual([
      ['member.removed', closing, true],
      ['member.added', markId, false],
    ]);
    expect(stream.frames[0]?.data.userIds).toEqual(expect.arrayContaining([kim.userId, ola.userId]));

    await olaStream.waitFor((frames) => frames.some((frame) => frame.type === 'member.added'));
    expect(olaStream.frames.map((frame) => [frame.type, frame.data.channelId ?? frame.data.channel?.channelId, frame.data.channel?.isClosed])).toEqual([
      ['channel.updated', closing, true],
      ['member.removed', closing, true],
      ['member.added', markId, false],
    ]);
    stream.socket.close();
    olaStream.socket.close();
  });

  it('names the former members of a closed channel in slices of 500, each member in exactly one', async () => {
    const kim = await userWithToken('kim');
    const closing = t.uniqueId('big-close');
    const others = Array.from({ length: 520 }, (_, i) => t.uniqueId(`m${i}`));
    for (const userId of others) await admin.createUser(userId);
    await admin.createChannel(closing, { userIds: [kim.userId] });
    for (let start = 0; start < others.length; start += 100) {
      expect((await admin.call('POST', `/api/v2/channel/${closing}/users`, { userIds: others.slice(start, start + 100) })).statusCode).toBe(200);
    }
    await t.events.relay.flush();
    const since = Number(
      (
        await t.storage.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirstOrThrow()
      ).max,
    );
    expect((await admin.call('POST', `/api/v2/channel/${closing}/close`)).statusCode).toBe(200);

    const removals = await t.storage.db
      .selectFrom('outbox')
      .select('payload')
      .where('id', '>', since)
      .where('type', '=', 'member.removed')
      .orderBy('id')
      .execute();
    const slices = removals.map((row) => (JSON.parse(row.payload) as { userIds: string[] }).userIds);
    expect(slices.map((slice) => slice.length).sort((a, b) => b - a)).toEqual([500, 22]);
    expect(slices.flat().sort()).toEqual([...others, kim.userId, 'admin-env'].sort());
    const stream = await openStream(`${base}/client/v1/stream?token=${kim.token}&since=${since}`);
    await stream.waitFor((frames) => frames.some((frame) => frame.type === 'member.removed'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stream.frames.filter((frame) => frame.type === 'member.removed')).toHaveLength(1);
    stream.socket.close();
  });

  it('resumes past stored events whose payload holds an escaped NUL (rows written past the NUL check)', async () => {
    const since = Number(
      (
        await t.storage.db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirstOrThrow()
      ).max,
    );
    const [gone, other] = [t.uniqueId('gone'), t.uniqueId('other')];
    const channel = { channelId: 'old-ch', displayName: 'old', metadata: { 'k\u0000': 'v\u0000' } };
    const payloadOf = (userIds: string[]) => JSON.stringify({ channelId: 'old-ch', userIds, channel });
    await t.storage.db
      .insertInto('outbox')
      .values([
        { type: 'member.removed', channel_id: 'old-ch', user_id: null, recipient_id: null, payload: payloadOf([gone, 'x"]y']), created_at: Date.now() },
        { type: 'channel.updated', channel_id: 'old-ch', user_id: null, recipient_id: null, payload: JSON.stringify({ channel }), created_at: Date.now() },
      ])
      .execute();
    const store = createRealtimeStore(t.storage.db, t.storage.dialect);
    expect((await store.eventsFor(gone, since, 100)).map((event) => event.type)).toEqual(['member.removed']);
    expect(await store.eventsFor(other, since, 100)).toEqual([]);
    expect((await store.eventsFor('x"]y', since, 100)).map((event) => event.type)).toEqual(['member.removed']);
  });

  it('ends the streams of a user banned while connected, with 4003', async () => {
    const ban = await userWithToken('ban-live');
    const first = await openStream(`${base}/client/v1/stream?token=${ban.token}`);
    const second = await openStream(`${base}/client/v1/stream?token=${ban.token}`);
    expect((await admin.call('POST', '/api/v2/users/ban', { userId: ban.userId })).statusCode).toBe(200);
    expect(await first.closed).toBe(4003);
    expect(await second.closed).toBe(4003);
    await expect(openStream(`${base}/client/v1/stream?token=${ban.token}`)).rejects.toThrow('HTTP 403');
  });

  it('ends a stream whose token was revoked elsewhere, or expired, with 4001 at the next heartbeat', async () => {
    const revoked = await userWithToken('revoked');
    const kept = await userWithToken('kept');
    const cut = await openStream(`${base}/client/v1/stream?token=${revoked.token}`);
    const open = await openStream(`${base}/client/v1/stream?token=${kept.token}`);
    // As the CLI or another instance would: straight in the database, nothing told to this instance.
    await t.storage.db.updateTable('tokens').set({ revoked_at: Date.now() }).where('user_id', '=', revoked.userId).execute();
    expect(await cut.closed).toBe(4001);
    expect(open.socket.readyState).toBe(WebSocket.OPEN);

    // Expiry: kept's token lives an hour; an hour and a minute later its stream ends.
    t.clock.setOffset(3_660_000);
    try {
      expect(await open.closed).toBe(4001);
    } finally {
      t.clock.setOffset(0);
    }
  });

  it("replays a channel's events to a resuming member only from when their membership began", async () => {
    const ann = await userWithToken('ann');
    const ned = await userWithToken('ned');
    const channelId = t.uniqueId('history');
    await admin.createChannel(channelId, { userIds: [ann.userId] });
    await t.events.relay.flush();
    const start = (
      await t.storage.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirstOrThrow()
    ).max;
    const post = async (text: string) =>
      (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } })).json().data.messages[0].messageId as string;
    const deleted = await post('said before ned came, then deleted');
    await admin.call('DELETE', `/api/v2/message/${deleted}`);
    await post('said before ned came');
    t.clock.setOffset(5);
    try {
      await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [ned.userId] });
      await post('said to ned');
      await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [ned.userId] });
      t.clock.setOffset(10);
      await post('said while ned was out');
      t.clock.setOffset(15);
      await admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [ned.userId] });
      await post('said after ned came back');
    } finally {
      t.clock.setOffset(0);
    }
    const messageTexts = (frames: Frame[]) =>
      frames.filter((frame) => frame.type === 'message.created').map((frame) => (frame.data as unknown as { data: { text: string } }).data.text);
    const nedStream = await openStream(`${base}/client/v1/stream?token=${ned.token}&since=${start}`);
    await nedStream.waitFor((frames) => messageTexts(frames).includes('said after ned came back'));
    expect(messageTexts(nedStream.frames)).toEqual(['said after ned came back']);
    expect(nedStream.frames.some((frame) => frame.type === 'member.added')).toBe(true);
    // A member all along gets the whole story, deletion included: the deleted message as its tombstone.
    const annStream = await openStream(`${base}/client/v1/stream?token=${ann.token}&since=${start}`);
    await annStream.waitFor((frames) => messageTexts(frames).includes('said after ned came back'));
    expect(messageTexts(annStream.frames)).toEqual([undefined, 'said before ned came', 'said to ned', 'said while ned was out', 'said after ned came back']);
    expect(annStream.frames.some((frame) => frame.type === 'message.deleted')).toBe(true);
    nedStream.socket.close();
    annStream.socket.close();
  });

  it('drops a peer that stops answering heartbeats', async () => {
    const max = await userWithToken('max');
    const stream = await openStream(`${base}/client/v1/stream?token=${max.token}`);
    // Stop reading: pings go unanswered, and the server gives up on the peer within two intervals.
    const raw = (stream.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    await new Promise((resolve) => setTimeout(resolve, 600));
    raw.resume();
    const code = await stream.closed;
    expect(code).toBe(1006);
  });
});
