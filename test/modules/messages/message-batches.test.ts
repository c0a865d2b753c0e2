import { afterEach, describe, expect, it } from 'vitest';
import { appendEvents } from '../../../src/events/outbox.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { uncatalogued } from '../../events/uncatalogued.js';

/**
 * Message creates are written in batches (group commit) whose events the writer hands to the outbox
 * relay itself, on SQLite without reading them back (relay.ts handOver). Answers, segments, counters,
 * tags and events must be those of single creates, and every committed event must reach the relay's
 * listeners once, in outbox order, also when other writes come between the batches.
 */
describe.each(testDatabases)('message batches on %s', (database) => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  async function burst(app: TestApp, channelId: string, parentId: string, foreignParentId: string) {
    const admin = adminClient(app);
    const responses = await Promise.all(
      Array.from({ length: 220 }, (_, index) => {
        if (index % 11 === 5)
          return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `bad ${index}` }, parentId: foreignParentId });
        const comment = index % 3 === 0 ? { parentId } : {};
        return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `m${index}` }, tags: [`t${index % 4}`], ...comment });
      }),
    );
    return responses;
  }

  it('answers 200 concurrent creates with gapless segments, counters, tags and events equal to the answers', async () => {
    const app = await startTestApp(database);
    t = app;
    const admin = adminClient(app);
    const channelId = app.uniqueId('writer');
    const other = app.uniqueId('other');
    await admin.createChannel(channelId);
    await admin.createChannel(other);
    const send = async (channel: string, text: string) =>
      (await admin.call('POST', '/api/v2/message', { channelId: channel, type: 'text', data: { text } })).json().data.messages[0];
    const parent = await send(channelId, 'parent');
    const foreign = await send(other, 'foreign');

    const responses = await burst(app, channelId, parent.messageId, foreign.messageId);
    const ok = responses.filter((response) => response.statusCode === 200);
    expect(ok).toHaveLength(200);
    expect(responses.filter((response) => response.statusCode === 404)).toHaveLength(20);
    const answered = ok.map((response) => response.json().data.messages[0]);
    expect(answered.map((message) => message.channelSegment as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, index) => index + 2));

    const db = app.storage.db;
    const channel = await db.selectFrom('channels').select(['message_count', 'last_segment']).where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(channel).toEqual({ message_count: 201, last_segment: 201 });
    const children = await db.selectFrom('messages').select('children_number').where('id', '=', parent.messageId).executeTakeFirstOrThrow();
    expect(children.children_number).toBe(Array.from({ length: 220 }, (_, index) => index).filter((index) => index % 11 !== 5 && index % 3 === 0).length);
    const tags = await db
      .selectFrom('message_tags')
      .select(['message_id', 'tag'])
      .where(
        'message_id',
        'in',
        answered.map((message) => message.messageId as string),
      )
      .execute();
    expect(tags).toHaveLength(200);
    // Every answer is the record its event carries and the record a read presents.
    const events = await db
      .selectFrom('outbox')
      .select(['payload', 'user_id'])
      .where('type', '=', 'message.created')
      .where('channel_id', '=', channelId)
      .execute();
    const byId = new Map(events.map((event) => [JSON.parse(event.payload).messageId as string, JSON.parse(event.payload)]));
    expect(byId.size).toBe(201);
    for (const message of answered) expect(byId.get(message.messageId)).toEqual(message);
    const sample = answered[17];
    expect((await admin.call('GET', `/api/v2/message/${sample.messageId}`)).json().message).toEqual(sample);
  });

  it('hands every committed event to the relay once, in outbox order, with other writes in between', async () => {
    const app = await startTestApp(database);
    t = app;
    const admin = adminClient(app);
    const channelId = app.uniqueId('handover');
    await admin.createChannel(channelId);
    const users = Array.from({ length: 30 }, (_, index) => app.uniqueId(`member${index}`));
    for (const userId of users) await admin.createUser(userId);
    const doomed: string[] = [];
    for (let index = 0; index < 30; index += 1) {
      doomed.push(
        (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `doomed ${index}` } })).json().data.messages[0].messageId,
      );
    }
    await app.events.relay.flush();
    const seen: number[] = [];
    const stop = app.events.relay.onEvents((events, afterId) => {
      // Each delivery starts right after the previous one: nothing skipped, nothing twice.
      expect(afterId).toBe(seen.at(-1) ?? afterId);
      for (const event of events) seen.push(event.id);
    });
    const first = (
      await app.storage.db
        .selectFrom('outbox')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirstOrThrow()
    ).max;
    // An event committed by a writer that wakes nobody (a background job; the relay's poll would find
    // it), then a create: the create's events do not follow the relay's position, so it must read.
    await appendEvents(app.storage.db, uncatalogued([{ type: 'test.background', channelId, data: { quiet: true } }]), Date.now());
    await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'after the quiet one' } });
    // Message creates (handed over by the writer) racing member adds and message deletes (Kysely
    // transactions whose events the relay reads back), in three waves.
    for (let wave = 0; wave < 3; wave += 1) {
      await Promise.all(
        Array.from({ length: 60 }, (_, index) => {
          const slot = wave * 10 + Math.floor(index / 6);
          if (index % 6 === 0) return admin.call('POST', `/api/v2/channel/${channelId}/users`, { userIds: [users[slot]] });
          if (index % 6 === 3) return admin.call('DELETE', `/api/v2/message/${doomed[slot]}`);
          return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `w${wave}-${index}` } });
        }),
      );
    }
    await app.events.relay.flush();
    stop();
    const rows = await app.storage.db.selectFrom('outbox').select(['id', 'type']).where('id', '>', Number(first)).orderBy('id').execute();
    expect(rows.filter((row) => row.type === 'message.created')).toHaveLength(121);
    expect(rows.filter((row) => row.type !== 'message.created').length).toBeGreaterThan(0);
    expect(seen).toEqual(rows.map((row) => row.id));
  });
});
