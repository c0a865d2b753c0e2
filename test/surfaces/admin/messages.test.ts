import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

interface MessageRecord {
  messageId: string;
  channelId: string;
  userId: string;
  type: string;
  data: Record<string, unknown>;
  tags: string[];
  parentId: string | null;
  childrenNumber: number;
  channelSegment: number;
  isDeleted: boolean;
  fileId: string | null;
  createdAt: string;
  updatedAt: string;
}

describe.each(testDatabases)('messages admin API on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A fresh channel tagged with its own id, so channelOf can find it. */
  async function newChannel(prefix = 'room'): Promise<string> {
    const channelId = t.uniqueId(prefix);
    await admin.createChannel(channelId, { tags: [channelId] });
    return channelId;
  }

  async function channelOf(channelId: string) {
    const response = await admin.call('POST', '/api/v2/channels', { tags: [channelId] });
    return response.json().results[0].channel;
  }

  async function send(channelId: string, text: string, extra: Record<string, unknown> = {}): Promise<MessageRecord> {
    const response = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text }, ...extra });
    if (response.statusCode !== 200) throw new Error(`send: ${response.statusCode} ${response.body}`);
    return response.json().data.messages[0];
  }

  async function getMessage(messageId: string): Promise<MessageRecord> {
    return (await admin.call('GET', `/api/v2/message/${messageId}`)).json().message;
  }

  async function query(channelId: string, body: Record<string, unknown> = {}) {
    const response = await admin.call('POST', '/api/v2/messages', { channelId, ...body });
    expect(response.statusCode, response.body).toBe(200);
    const json = response.json();
    return { ...json, segments: json.data.messages.map((message: MessageRecord) => message.channelSegment) as number[] };
  }

  it('creates a text message: the record, its author once, the channel counters and an outbox event', async () => {
    const channelId = await newChannel();
    const before = await channelOf(channelId);
    const response = await admin.call('POST', '/api/v2/message', {
      channelId,
      type: 'text',
      data: { text: 'Hello there', extra: 'dropped' },
      tags: ['a', 'b', 'a'],
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = response.json();
    expect(body.status).toBe('success');
    expect(body.paging).toEqual({ next: null, prev: null });
    const [message] = body.data.messages;
    expect(message).toMatchObject({
      channelId,
      userId: 'admin-env',
      type: 'text',
      data: { text: 'Hello there' },
      tags: ['a', 'b'],
      parentId: null,
      childrenNumber: 0,
      channelSegment: 1,
      isDeleted: false,
      fileId: null,
      flagCount: 0,
      reactions: {},
      reactionsCount: 0,
      editedAt: null,
    });
    expect(message.messageId).toMatch(/^[0-9a-f]{24}$/);
    expect(message.createdAt).toBe(message.updatedAt);
    expect(body.data.users).toHaveLength(1);
    expect(body.data.users[0]).toMatchObject({ userId: 'admin-env' });
    // The answer is written as text on the create path: it must be the record every read presents.
    const fetched = (await admin.call('GET', `/api/v2/message/${message.messageId}`)).json();
    expect(message).toEqual(fetched.message);
    expect(body.data.users).toEqual([fetched.user]);

    const second = await send(channelId, 'again');
    expect(second.channelSegment).toBe(2);
    const after = await channelOf(channelId);
    expect(after.messageCount).toBe(2);
    expect(Date.parse(after.lastActivity)).toBeGreaterThanOrEqual(Date.parse(before.lastActivity));
    expect(after.lastActivity).toBe(second.createdAt);

    const events = await t.storage.db
      .selectFrom('outbox')
      .selectAll()
      .where('type', '=', 'message.created')
      .where('channel_id', '=', channelId)
      .orderBy('id')
      .execute();
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[0]?.payload ?? '{}')).toEqual(message);
    expect(events[0]?.user_id).toBe('admin-env');
  });

  it('accepts a form-encoded create like every admin endpoint', async () => {
    const channelId = await newChannel();
    const response = await admin.form('POST', '/api/v2/message', `channelId=${channelId}&type=text&data[text]=from%20a%20form&tags[]=x&tags[]=y`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.messages[0]).toMatchObject({ data: { text: 'from a form' }, tags: ['x', 'y'], channelSegment: 1 });
    const asJsonField = await admin.form('POST', '/api/v2/message', `channelId=${channelId}&type=text&data=${encodeURIComponent('{"text":"json field"}')}`);
    expect(asJsonField.json().data.messages[0]).toMatchObject({ data: { text: 'json field' }, channelSegment: 2 });
  });

  it('creates a custom message holding any JSON object up to 100 KB', async () => {
    const channelId = await newChannel();
    const data = { kind: 'poll', options: ['yes', 'no'], nested: { votes: [1, 2], open: true, none: null } };
    const response = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.messages[0]).toMatchObject({ type: 'custom', data, channelSegment: 1 });

    const justUnder = { blob: 'x'.repeat(100 * 1024 - 20) };
    expect((await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: justUnder })).statusCode).toBe(200);
    const over = await admin.call('POST', '/api/v2/message', { channelId, type: 'custom', data: { blob: 'x'.repeat(100 * 1024) } });
    expect(over.statusCode).toBe(422);
    expect(over.json()).toMatchObject({ status: 'error', code: 500000 });
    expect((await channelOf(channelId)).messageCount).toBe(2);
  });

  it('refuses bad input with the catalogue codes and writes nothing', async () => {
    const channelId = await newChannel();
    const unknownType = await admin.call('POST', '/api/v2/message', { channelId, type: 'video', data: { text: 'x' } });
    expect(unknownType.statusCode).toBe(400);
    expect(unknownType.json().code).toBe(400000);

    const noText = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { caption: 'x' } });
    expect(noText.statusCode).toBe(422);
    expect(noText.json()).toMatchObject({ code: 500000, data: { fields: [{ field: 'body.data.text' }] } });

    const tooLong = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x'.repeat(20_001) } });
    expect(tooLong.statusCode).toBe(422);
    const longest = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'é'.repeat(20_000) } });
    expect(longest.statusCode).toBe(200);

    const noChannel = await admin.call('POST', '/api/v2/message', { type: 'text', data: { text: 'x' } });
    expect(noChannel.statusCode).toBe(422);
    expect(noChannel.json().data.fields[0].field).toBe('body.channelId');

    const dataNotObject = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: 'hello' });
    expect(dataNotObject.statusCode).toBe(422);

    const noToken = await t.app.inject({ method: 'POST', url: '/api/v2/message', payload: { channelId, type: 'text', data: { text: 'x' } } });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json().code).toBe(400100);

    expect((await channelOf(channelId)).messageCount).toBe(1);
    expect((await query(channelId)).segments).toEqual([1]);
  });

  it('answers 404 / 400400 for a missing channel and 409 / 400900 for a closed one', async () => {
    const missing = await admin.call('POST', '/api/v2/message', { channelId: t.uniqueId('nowhere'), type: 'text', data: { text: 'x' } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 400400, message: 'Channel not found.' });

    const channelId = await newChannel();
    await send(channelId, 'before close');
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/close`)).statusCode).toBe(200);
    const closed = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' } });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ status: 'error', code: 400900 });
    const count = await t.storage.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('channel_id', '=', channelId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('comments raise the parent childrenNumber; a parent of another channel or a deleted one is 404 and takes no segment', async () => {
    const channelId = await newChannel();
    const other = await newChannel('other');
    const parent = await send(channelId, 'parent');
    const foreign = await send(other, 'elsewhere');
    const comment = await send(channelId, 'comment 1', { parentId: parent.messageId });
    await send(channelId, 'comment 2', { parentId: parent.messageId });
    expect(comment).toMatchObject({ parentId: parent.messageId, channelSegment: 2 });
    expect((await getMessage(parent.messageId)).childrenNumber).toBe(2);

    const wrongChannel = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' }, parentId: foreign.messageId });
    expect(wrongChannel.statusCode).toBe(404);
    expect(wrongChannel.json()).toMatchObject({ code: 400400, data: { fields: [{ field: 'body.parentId' }] } });
    const unknown = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' }, parentId: 'ffffffffffffffffffffffff' });
    expect(unknown.statusCode).toBe(404);

    const doomed = await send(channelId, 'to be deleted');
    await admin.call('DELETE', `/api/v2/message/${doomed.messageId}`);
    const onDeleted = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' }, parentId: doomed.messageId });
    expect(onDeleted.statusCode).toBe(404);

    // The refused creates took no segment: the next one follows without a gap.
    expect((await send(channelId, 'next')).channelSegment).toBe(5);
    expect((await getMessage(foreign.messageId)).childrenNumber).toBe(0);
    expect((await channelOf(channelId)).messageCount).toBe(4);
  });

  it('GET /message/:id answers the channel, the message and its author', async () => {
    const channelId = await newChannel();
    const message = await send(channelId, 'look at me', { tags: ['t1'] });
    const response = await admin.call('GET', `/api/v2/message/${message.messageId}`);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.message).toEqual(message);
    expect(body.channel).toMatchObject({ channelId, messageCount: 1 });
    expect(body.user).toMatchObject({ userId: 'admin-env' });

    const missing = await admin.call('GET', '/api/v2/message/000000000000000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 400400, message: 'Message not found.' });
  });

  it('DELETE soft-deletes: isDeleted, data emptied, counters kept consistent, an event; deleting again changes nothing', async () => {
    const channelId = await newChannel();
    const parent = await send(channelId, 'parent');
    const comment = await send(channelId, 'secret comment', { parentId: parent.messageId });
    expect((await channelOf(channelId)).messageCount).toBe(2);

    const response = await admin.call('DELETE', `/api/v2/message/${comment.messageId}`);
    expect(response.statusCode).toBe(200);
    const deleted = response.json().data.messages[0];
    expect(deleted).toMatchObject({ messageId: comment.messageId, isDeleted: true, data: {}, channelSegment: 2, parentId: parent.messageId });
    expect(Date.parse(deleted.updatedAt)).toBeGreaterThanOrEqual(Date.parse(comment.updatedAt));
    expect(await getMessage(comment.messageId)).toEqual(deleted);
    expect((await getMessage(parent.messageId)).childrenNumber).toBe(0);
    expect((await channelOf(channelId)).messageCount).toBe(1);

    const again = await admin.call('DELETE', `/api/v2/message/${comment.messageId}`);
    expect(again.statusCode).toBe(200);
    expect((await getMessage(parent.messageId)).childrenNumber).toBe(0);
    expect((await channelOf(channelId)).messageCount).toBe(1);

    const events = await t.storage.db.selectFrom('outbox').selectAll().where('type', '=', 'message.deleted').where('channel_id', '=', channelId).execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]?.payload ?? '{}')).toMatchObject({ messageId: comment.messageId, isDeleted: true, data: {} });

    // Segments are never reused.
    expect((await send(channelId, 'after delete')).channelSegment).toBe(3);
    expect((await admin.call('DELETE', '/api/v2/message/000000000000000000000000')).statusCode).toBe(404);
  });

  describe('query', () => {
    let channelId: string;
    let messages: MessageRecord[];

    beforeAll(async () => {
      channelId = await newChannel('paged');
      messages = [];
      for (let index = 1; index <= 45; index += 1) messages.push(await send(channelId, `m${index}`));
    });

    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

    it('answers the newest 20 by default, ascending, with its authors once', async () => {
      const page = await query(channelId);
      expect(page.status).toBe('success');
      expect(page.segments).toEqual(range(26, 45));
      expect(page.data.users).toHaveLength(1);
      expect(page.data.messages[0]).toEqual(messages[25]);
      expect(page.paging.next).toBeNull();
      expect(page.paging.prev).toEqual(expect.any(String));
    });

    it('pages forwards with after + first and backwards with before + last, and tokens continue', async () => {
      const forward = await query(channelId, { options: { after: 10, first: 5 } });
      expect(forward.segments).toEqual(range(11, 15));
      const next = await query(channelId, { options: { token: forward.paging.next } });
      expect(next.segments).toEqual(range(16, 20));
      const prev = await query(channelId, { options: { token: next.paging.prev } });
      expect(prev.segments).toEqual(range(11, 15));

      const backward = await query(channelId, { options: { before: 30, last: 7 } });
      expect(backward.segments).toEqual(range(23, 29));
      const older = await query(channelId, { options: { token: backward.paging.prev } });
      expect(older.segments).toEqual(range(16, 22));
      const newer = await query(channelId, { options: { token: backward.paging.next } });
      expect(newer.segments).toEqual(range(30, 36));

      const first = await query(channelId, { options: { first: 3 } });
      expect(first.segments).toEqual([1, 2, 3]);
      expect(first.paging.prev).toBeNull();
      const last = await query(channelId, { options: { last: 3 } });
      expect(last.segments).toEqual([43, 44, 45]);
      const end = await query(channelId, { options: { after: 40, first: 10 } });
      expect(end.segments).toEqual(range(41, 45));
      expect(end.paging.next).toBeNull();
    });

    it('walks the whole channel with next tokens, each message once', async () => {
      const seen: number[] = [];
      let page = await query(channelId, { options: { first: 10 } });
      seen.push(...page.segments);
      while (page.paging.next) {
        page = await query(channelId, { options: { token: page.paging.next } });
        seen.push(...page.segments);
      }
      expect(seen).toEqual(range(1, 45));
    });

    it('accepts the options of a form body as numbers', async () => {
      const response = await admin.form('POST', '/api/v2/messages', `channelId=${channelId}&options[after]=5&options[first]=2`);
      expect(response.json().data.messages.map((message: MessageRecord) => message.channelSegment)).toEqual([6, 7]);
    });

    it('refuses altered tokens, tokens of another channel, first with last, a bad size and a missing channel', async () => {
      const { paging } = await query(channelId, { options: { before: 30, last: 5 } });
      const token = paging.prev as string;
      const altered = `${token.slice(0, 4)}${token[4] === 'A' ? 'B' : 'A'}${token.slice(5)}`;
      const bad = await admin.call('POST', '/api/v2/messages', { channelId, options: { token: altered } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 400000, message: 'Query token is invalid.' });
      const otherChannel = await newChannel();
      const foreign = await admin.call('POST', '/api/v2/messages', { channelId: otherChannel, options: { token } });
      expect(foreign.statusCode).toBe(400);
      const both = await admin.call('POST', '/api/v2/messages', { channelId, options: { first: 5, last: 5 } });
      expect(both.statusCode).toBe(422);
      const tooMany = await admin.call('POST', '/api/v2/messages', { channelId, options: { last: 101 } });
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.json().data.fields[0].field).toBe('body.options.last');
      const missing = await admin.call('POST', '/api/v2/messages', { channelId: t.uniqueId('nope') });
      expect(missing.statusCode).toBe(404);
    });
  });

  it('filters by parent and by tags', async () => {
    const channelId = await newChannel();
    const top1 = await send(channelId, 'top 1', { tags: ['news'] });
    const c1 = await send(channelId, 'comment 1', { parentId: top1.messageId, tags: ['news', 'reply'] });
    const top2 = await send(channelId, 'top 2', { tags: ['chat'] });
    const c2 = await send(channelId, 'comment 2', { parentId: top1.messageId });
    const c3 = await send(channelId, 'comment of 2', { parentId: top2.messageId });
    const ids = (page: { data: { messages: MessageRecord[] } }) => page.data.messages.map((message) => message.messageId);

    expect(ids(await query(channelId, { filterByParentId: true }))).toEqual([top1.messageId, top2.messageId]);
    expect(ids(await query(channelId, { parentId: top1.messageId }))).toEqual([c1.messageId, c2.messageId]);
    expect(ids(await query(channelId, { parentId: top2.messageId, filterByParentId: true }))).toEqual([c3.messageId]);
    expect(ids(await query(channelId, { tags: ['news'] }))).toEqual([top1.messageId, c1.messageId]);
    expect(ids(await query(channelId, { tags: ['chat', 'reply'] }))).toEqual([c1.messageId, top2.messageId]);
    expect(ids(await query(channelId, { excludeTags: ['news'] }))).toEqual([top2.messageId, c2.messageId, c3.messageId]);
    expect(ids(await query(channelId, { tags: ['news'], excludeTags: ['reply'] }))).toEqual([top1.messageId]);
    const form = await admin.form('POST', '/api/v2/messages', `channelId=${channelId}&filterByParentId=true&tags=chat`);
    expect(ids(form.json())).toEqual([top2.messageId]);
  });

  it('gives 200 concurrent creates the segments 1..200 exactly, failing creates mixed in taking none', async () => {
    const channelId = await newChannel('busy');
    const other = await newChannel('elsewhere');
    const parent = await send(channelId, 'parent');
    const foreign = await send(other, 'foreign parent');
    const responses = await Promise.all(
      Array.from({ length: 220 }, (_, index) => {
        if (index % 11 === 5) {
          // 20 creates that fail inside the transaction (parent of another channel).
          return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `bad ${index}` }, parentId: foreign.messageId });
        }
        const parentId = index % 3 === 0 ? { parentId: parent.messageId } : {};
        return admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `m${index}` }, tags: [`t${index % 4}`], ...parentId });
      }),
    );
    const ok = responses.filter((response) => response.statusCode === 200);
    const failed = responses.filter((response) => response.statusCode !== 200);
    expect(failed).toHaveLength(20);
    expect(failed.every((response) => response.statusCode === 404)).toBe(true);
    expect(ok).toHaveLength(200);
    const segments = ok.map((response) => response.json().data.messages[0].channelSegment as number).sort((a, b) => a - b);
    expect(segments).toEqual(Array.from({ length: 200 }, (_, index) => index + 2));

    const channel = await channelOf(channelId);
    expect(channel.messageCount).toBe(201);
    const stored = await t.storage.db.selectFrom('messages').select('segment').where('channel_id', '=', channelId).orderBy('segment').execute();
    expect(stored.map((row) => row.segment)).toEqual(Array.from({ length: 201 }, (_, index) => index + 1));
    const expectedChildren = Array.from({ length: 220 }, (_, index) => index).filter((index) => index % 11 !== 5 && index % 3 === 0).length;
    expect((await getMessage(parent.messageId)).childrenNumber).toBe(expectedChildren);
    expect((await getMessage(foreign.messageId)).childrenNumber).toBe(0);
    const events = await t.storage.db.selectFrom('outbox').select('id').where('type', '=', 'message.created').where('channel_id', '=', channelId).execute();
    expect(events).toHaveLength(201);
  });

  it.runIf(database === 'postgres')('two instances on one database never share a segment', async () => {
    const peer = await t.startPeer();
    const channelId = await newChannel('shared');
    const viaPeer = (index: number) =>
      peer.app.inject({
        method: 'POST',
        url: '/api/v2/message',
        headers: { authorization: `Bearer ${t.adminToken}` },
        payload: { channelId, type: 'text', data: { text: `peer ${index}` } },
      });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        index % 2 === 0 ? admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `main ${index}` } }) : viaPeer(index),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(200).fill(200));
    const segments = responses.map((response) => response.json().data.messages[0].channelSegment as number).sort((a, b) => a - b);
    expect(segments).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
    expect((await channelOf(channelId)).messageCount).toBe(200);
  });

  it('creates racing a close either land before it (and are deleted by it) or are refused with 409', async () => {
    const channelId = await newChannel('racing');
    const creates = Array.from({ length: 60 }, (_, index) => admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `r${index}` } }));
    const close = admin.call('POST', `/api/v2/channel/${channelId}/close`);
    const later = Array.from({ length: 20 }, (_, index) => admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: `late ${index}` } }));
    const responses = await Promise.all([...creates, ...later]);
    expect((await close).statusCode).toBe(200);
    expect(responses.every((response) => response.statusCode === 200 || response.statusCode === 409)).toBe(true);
    const created = responses.filter((response) => response.statusCode === 200).length;
    const stored = await t.storage.db.selectFrom('messages').select(['segment', 'is_deleted']).where('channel_id', '=', channelId).orderBy('segment').execute();
    expect(stored.map((row) => row.segment)).toEqual(Array.from({ length: created }, (_, index) => index + 1));
    expect(stored.every((row) => row.is_deleted === 1)).toBe(true);
    expect(await channelOf(channelId)).toMatchObject({ isClosed: true, messageCount: 0 });
  });

  it('closing a channel soft-deletes all its messages and zeroes the counters', async () => {
    const channelId = await newChannel();
    const parent = await send(channelId, 'one');
    await send(channelId, 'two', { parentId: parent.messageId });
    await send(channelId, 'three');
    const untouched = await newChannel();
    await send(untouched, 'stays');

    expect((await admin.call('POST', `/api/v2/channel/${channelId}/close`)).statusCode).toBe(200);
    const page = await query(channelId);
    expect(page.segments).toEqual([1, 2, 3]);
    for (const message of page.data.messages as MessageRecord[]) {
      expect(message).toMatchObject({ isDeleted: true, data: {}, childrenNumber: 0 });
    }
    expect(await channelOf(channelId)).toMatchObject({ isClosed: true, messageCount: 0 });
    expect((await query(untouched)).data.messages[0]).toMatchObject({ isDeleted: false, data: { text: 'stays' } });
    expect((await admin.call('DELETE', `/api/v2/message/${parent.messageId}`)).statusCode).toBe(200);
    expect((await channelOf(channelId)).messageCount).toBe(0);
  });
});
