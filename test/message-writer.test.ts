import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteMessageWriter } from '../src/modules/messages/message-writer.js';
import type { MessageDraft } from '../src/modules/messages/messages.store.js';
import { newObjectId } from '../src/storage/ids.js';
import { adminClient } from './helpers/admin.js';
import { startTestApp, type TestApp } from './helpers/test-app.js';

/**
 * SQLite message batches run on a writer thread with its own connection (message-writer.ts). The
 * answers, segments, counters and events must be exactly those of the event-loop path, the thread
 * must really be the one writing (the metric says so), and a thread that dies must cost only its
 * batch in flight.
 */
describe('SQLite message writer thread', () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  const writerMetric = async (app: TestApp): Promise<number> => {
    const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^parley_sqlite_writer_thread (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
  };

  async function burst(app: TestApp, channelId: string, parentId: string, foreignParentId: string) {
    const admin = adminClient(app);
    const responses = await Promise.all(
      Array.from({ length: 220 }, (_, index) => {
        if (index % 11 === 5) return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `bad ${index}` }, parentId: foreignParentId });
        const comment = index % 3 === 0 ? { parentId } : {};
        return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `m${index}` }, tags: [`t${index % 4}`], ...comment });
      }),
    );
    return responses;
  }

  for (const thread of [true, false]) {
    it(`${thread ? 'runs batches on the thread once it is up' : 'PARLEY_SQLITE_WRITER_THREAD=0 keeps them on the event loop'}: gapless segments, counters, tags and events`, async () => {
      const app = await startTestApp('sqlite', thread ? {} : { PARLEY_SQLITE_WRITER_THREAD: '0' });
      t = app;
      const admin = adminClient(app);
      const channelId = app.uniqueId('writer');
      const other = app.uniqueId('other');
      await admin.createChannel(channelId);
      await admin.createChannel(other);
      const send = async (channel: string, text: string) => (await admin.call('POST', '/api/v2/message', { channelId: channel, type: 'text', data: { text } })).json().data.messages[0];
      const parent = await send(channelId, 'parent');
      const foreign = await send(other, 'foreign');
      expect(await writerMetric(app)).toBe(0);
      if (thread) {
        const deadline = Date.now() + 20_000;
        while ((await writerMetric(app)) !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(await writerMetric(app)).toBe(1);
      }

      const responses = await burst(app, channelId, parent.messageId, foreign.messageId);
      const ok = responses.filter((response) => response.statusCode === 200);
      expect(ok).toHaveLength(200);
      expect(responses.filter((response) => response.statusCode === 404)).toHaveLength(20);
      const answered = ok.map((response) => response.json().data.messages[0]);
      expect(answered.map((message) => message.channelSegment as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, index) => index + 2));
      expect(await writerMetric(app)).toBe(thread ? 1 : 0);

      const db = app.storage.db;
      const channel = await db.selectFrom('channels').select(['message_count', 'last_segment']).where('id', '=', channelId).executeTakeFirstOrThrow();
      expect(channel).toEqual({ message_count: 201, last_segment: 201 });
      const children = await db.selectFrom('messages').select('children_number').where('id', '=', parent.messageId).executeTakeFirstOrThrow();
      expect(children.children_number).toBe(Array.from({ length: 220 }, (_, index) => index).filter((index) => index % 11 !== 5 && index % 3 === 0).length);
      const tags = await db.selectFrom('message_tags').select(['message_id', 'tag']).where('message_id', 'in', answered.map((message) => message.messageId as string)).execute();
      expect(tags).toHaveLength(200);
      // Every answer is the record its event carries and the record a read presents.
      const events = await db.selectFrom('outbox').select(['payload', 'user_id']).where('type', '=', 'message.created').where('channel_id', '=', channelId).execute();
      const byId = new Map(events.map((event) => [JSON.parse(event.payload).messageId as string, JSON.parse(event.payload)]));
      expect(byId.size).toBe(201);
      for (const message of answered) expect(byId.get(message.messageId)).toEqual(message);
      const sample = answered[17];
      expect((await admin.call('GET', `/api/v2/message/${sample.messageId}`)).json().message).toEqual(sample);
    });
  }

  it('a thread that dies fails only its batch in flight; the next batches run on the event loop', async () => {
    const app = await startTestApp('sqlite', { PARLEY_SQLITE_WRITER_THREAD: '0' });
    t = app;
    const channelId = app.uniqueId('dying');
    await adminClient(app).createChannel(channelId);
    const sqlite = app.storage.sqlite;
    if (sqlite === null) throw new Error('SQLite storage expected');
    const writer = createSqliteMessageWriter(app.storage.db, sqlite, { thread: true, threadEntry: new URL('./helpers/dying-writer-thread.mjs', import.meta.url) });
    const draft = (text: string): MessageDraft => ({
      id: newObjectId(),
      channelId,
      userId: 'admin-env',
      type: 'text',
      data: JSON.stringify({ text }),
      tags: [],
      parentId: null,
      fileId: null,
      media: null,
      topicId: null,
      createdAt: Date.now(),
    });
    // The first batch starts the thread and, while it is not up yet, runs on the event loop.
    const [first] = await writer.insertBatch([draft('one')]);
    expect(first && 'row' in first ? first.row.segment : null).toBe(1);
    const deadline = Date.now() + 20_000;
    while (!writer.onThread && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writer.onThread).toBe(true);

    await expect(writer.insertBatch([draft('two'), draft('three')])).rejects.toThrow(/ended/);
    expect(writer.onThread).toBe(false);
    const later = await writer.insertBatch([draft('four'), draft('five')]);
    expect(later.map((outcome) => ('row' in outcome ? outcome.row.segment : null))).toEqual([2, 3]);
    const stored = await app.storage.db.selectFrom('messages').select('segment').where('channel_id', '=', channelId).orderBy('segment').execute();
    expect(stored.map((row) => row.segment)).toEqual([1, 2, 3]);
    await writer.close();
  });
});
