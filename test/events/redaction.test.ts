import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { OutboxEvent } from '../../src/events/outbox.js';
import { runTransaction } from '../../src/storage/transactions.js';
import { adminClient } from '../helpers/admin.js';
import { multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * A deleted message leaves no copy of what it said anywhere Parley stores one: a stream replaying from
 * the start shows its `message.created` as a tombstone (the deleted record) followed by the
 * `message.deleted`, and no table holds its text, custom data or file name, webhook deliveries
 * included; a delivery not yet made is given up rather than sent.
 */

interface Frame {
  id: number;
  type: string;
  data: { messageId?: string; isDeleted?: boolean; data?: Record<string, unknown>; fileId?: string | null };
}

/** A bot's endpoint that records every POST; answers 500 while `failing`. */
async function startReceiver() {
  const bodies: string[] = [];
  const state = { failing: false };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(state.failing ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, bodies, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until(test: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The frames a stream opened with `since` sends until `done` holds for them. */
async function replay(base: string, token: string, since: number, done: (frames: Frame[]) => boolean): Promise<{ frames: Frame[]; raw: string[] }> {
  const socket = new WebSocket(`${base}/client/v1/stream?token=${token}&since=${since}`);
  const frames: Frame[] = [];
  const raw: string[] = [];
  socket.on('message', (data) => {
    raw.push(data.toString());
    frames.push(JSON.parse(data.toString()) as Frame);
  });
  try {
    await until(() => done(frames));
  } finally {
    socket.close();
  }
  return { frames, raw };
}

describe.each(testDatabases)('deleted messages leave no copy on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let base: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, { webhooks: { baseBackoffMs: 50, pollIntervalMs: 50 } });
    admin = adminClient(t);
    base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  /** A channel with a user and a bot whose webhook is the receiver; the user's token. */
  async function channelWithBot(prefix: string) {
    const bot = await admin.call('POST', '/api/v2/bots', { displayName: 'Listener', webhookUrl: receiver.url });
    expect(bot.statusCode, bot.body).toBe(200);
    const userId = t.uniqueId(`${prefix}-user`);
    await admin.createUser(userId, { displayName: 'Writer' });
    const token = (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 })).json<{ accessToken: string }>().accessToken;
    const channelId = t.uniqueId(prefix);
    await admin.createChannel(channelId, { userIds: [userId, bot.json<{ userId: string }>().userId] });
    return { userId, token, channelId };
  }

  async function send(token: string, channelId: string, payload: Record<string, unknown>): Promise<string> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/messages`,
      headers: { authorization: `Bearer ${token}` },
      payload,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId as string;
  }

  async function sendFile(token: string, channelId: string, fileName: string): Promise<string> {
    const body = multipartBody([], [{ name: 'file', fileName, contentType: 'text/plain', data: Buffer.from('file bytes') }]);
    const sent = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/files`,
      headers: { authorization: `Bearer ${token}`, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    return sent.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId as string;
  }

  /** Every table and column holding `marker`, as `table: row`, searched in each row's JSON. */
  async function tablesHolding(marker: string): Promise<string[]> {
    const db = t.storage.db;
    const tables =
      database === 'postgres'
        ? (await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
    const found: string[] = [];
    for (const { name } of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)).rows;
      for (const row of rows) if (JSON.stringify(row).includes(marker)) found.push(`${name}: ${JSON.stringify(row).slice(0, 200)}`);
    }
    return found;
  }

  const deliveriesOf = async (messageId: string) =>
    (await t.storage.db.selectFrom('webhook_deliveries').selectAll().execute()).filter((row) => row.body.includes(messageId));

  it('replays a message deleted through the admin API as a tombstone, and no table keeps its text', async () => {
    const { token, channelId } = await channelWithBot('admin-delete');
    const gone = t.uniqueId('secret-words');
    const kept = t.uniqueId('kept-words');
    const goneId = await send(token, channelId, { type: 'text', data: { text: `the ${gone} said once` } });
    await send(token, channelId, { type: 'text', data: { text: kept } });
    // The bot heard it: the delivery record holds its text until the delete.
    await until(() => receiver.bodies.some((body) => body.includes(gone)));
    await until(async () => (await deliveriesOf(goneId)).some((row) => row.delivered_at !== null));
    expect(await tablesHolding(gone)).not.toEqual([]);

    const deleted = await admin.call('DELETE', `/api/v2/message/${goneId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);

    const { frames, raw } = await replay(base, token, 0, (seen) => seen.some((frame) => frame.type === 'message.deleted' && frame.data.messageId === goneId));
    const ofGone = frames.filter((frame) => frame.data.messageId === goneId);
    expect(ofGone.map((frame) => frame.type)).toEqual(['message.created', 'message.deleted']);
    expect(ofGone[0]?.data).toMatchObject({ messageId: goneId, isDeleted: true, data: {}, fileId: null });
    expect(raw.filter((text) => text.includes(gone))).toEqual([]);
    expect(raw.some((text) => text.includes(kept))).toBe(true);

    expect(await tablesHolding(gone)).toEqual([]);
    // The search finds what is still there: the message kept, in its row and its event.
    expect((await tablesHolding(kept)).length).toBeGreaterThanOrEqual(2);
    const [delivery] = await deliveriesOf(goneId);
    expect(JSON.parse(delivery?.body ?? '{}').data).toMatchObject({ messageId: goneId, isDeleted: true, data: {} });
  });

  it('gives up a delivery not yet made when the author deletes the message, and never sends it', async () => {
    const { token, channelId } = await channelWithBot('author-delete');
    const gone = t.uniqueId('custom-secret');
    receiver.state.failing = true;
    try {
      const goneId = await send(token, channelId, { type: 'custom', data: { note: gone, nested: { deeper: [gone] } } });
      await until(() => receiver.bodies.some((body) => body.includes(gone)));
      const deleted = await t.app.inject({ method: 'DELETE', url: `/client/v1/messages/${goneId}`, headers: { authorization: `Bearer ${token}` } });
      expect(deleted.statusCode, deleted.body).toBe(200);
      const [delivery] = await deliveriesOf(goneId);
      expect(delivery).toMatchObject({ delivered_at: null, last_error: 'the message was deleted' });
      expect(delivery?.gave_up_at).not.toBeNull();
      // Retries came every 50 ms while failing; none comes after the delete, failing or not.
      receiver.state.failing = false;
      const attempts = receiver.bodies.length;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(receiver.bodies.slice(attempts)).toEqual([]);
      expect(await tablesHolding(gone)).toEqual([]);
    } finally {
      receiver.state.failing = false;
    }
  });

  it("takes a file message's name and content type with it", async () => {
    const { token, channelId } = await channelWithBot('file-delete');
    const gone = t.uniqueId('plans');
    const goneId = await sendFile(token, channelId, `${gone}.txt`);
    await until(async () => (await deliveriesOf(goneId)).length > 0);
    expect(await tablesHolding(gone)).not.toEqual([]);
    const deleted = await t.app.inject({ method: 'DELETE', url: `/client/v1/messages/${goneId}`, headers: { authorization: `Bearer ${token}` } });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await tablesHolding(gone)).toEqual([]);
  });

  it("redacts every message's event when its channel closes", async () => {
    const { token, channelId } = await channelWithBot('close');
    const gone = t.uniqueId('closing-words');
    const ids: string[] = [];
    for (let index = 0; index < 4; index++) ids.push(await send(token, channelId, { type: 'text', data: { text: `${gone} ${index}` } }));
    ids.push(await sendFile(token, channelId, `${gone}.pdf`));
    await until(async () => (await deliveriesOf(ids[4] as string)).length > 0);
    const closed = await admin.call('POST', `/api/v2/channel/${channelId}/close`);
    expect(closed.statusCode, closed.body).toBe(200);
    // The file's blob goes after the commit; what the row keeps until then names it no more.
    const media = await t.storage.db
      .selectFrom('messages')
      .select('media')
      .where('id', '=', ids[4] as string)
      .executeTakeFirst();
    expect(media?.media ?? '').not.toContain(gone);
    expect(await tablesHolding(gone)).toEqual([]);
    const payloads = await t.storage.db
      .selectFrom('outbox')
      .select('payload')
      .where('channel_id', '=', channelId)
      .where('type', '=', 'message.created')
      .execute();
    expect(payloads.map((row) => JSON.parse(row.payload))).toEqual(ids.map((messageId) => expect.objectContaining({ messageId, isDeleted: true, data: {} })));
  });

  it('schedules no delivery from an event handed over before the message was deleted', async () => {
    const { token, channelId } = await channelWithBot('stale-event');
    const gone = t.uniqueId('stale-words');
    const handed: OutboxEvent[] = [];
    t.events.relay.onEvents((events) => {
      handed.push(...events.filter((event) => event.type === 'message.created' && JSON.stringify(event.data).includes(gone)));
    });
    const goneId = await send(token, channelId, { type: 'text', data: { text: gone } });
    await until(async () => handed.length === 1 && (await deliveriesOf(goneId)).length > 0);
    const deleted = await admin.call('DELETE', `/api/v2/message/${goneId}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    // The consumer's run as if it had held the event from before the delete and not scheduled it yet.
    await t.storage.db
      .deleteFrom('webhook_deliveries')
      .where('event_id', '=', handed[0]?.id ?? 0)
      .execute();
    await runTransaction(t.storage.db, (trx) => t.webhooks.schedule(trx, handed));
    expect(
      await t.storage.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('event_id', '=', handed[0]?.id ?? 0)
        .execute(),
    ).toEqual([]);
    expect(await tablesHolding(gone)).toEqual([]);
  });

  it.runIf(database === 'sqlite')("finds a message's event through the outbox_message_created index", () => {
    const expression = `case when instr(payload, '","channelId":') > 15 then substr(payload, 15, instr(payload, '","channelId":') - 15) end`;
    const query = `explain query plan select id from outbox where type = 'message.created' and ${expression} in (?, ?)`;
    const rows = (t.storage.sqlite?.prepare(query).all('a', 'b') ?? []) as Array<{ detail: string }>;
    const plan = rows.map((row) => row.detail).join('\n');
    expect(plan).toContain('outbox_message_created');
  });

  it.runIf(database === 'postgres')("finds a message's event through the outbox_message_created index among many", async () => {
    const db = t.storage.db;
    await sql`insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at)
      select 'message.created', 'busy', 'u', null, '{"messageId":"m' || n || '","channelId":"busy","data":{}}', 0 from generate_series(1, 20000) as n`.execute(
      db,
    );
    await sql`analyze outbox`.execute(db);
    const expression = sql.raw(`case when strpos(payload, '","channelId":') > 15 then substr(payload, 15, strpos(payload, '","channelId":') - 15) end`);
    const plan = (
      await sql<{ 'QUERY PLAN': string }>`explain select id from outbox where type = 'message.created' and ${expression} in (${'m77'})`.execute(db)
    ).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('outbox_message_created');
    await sql`delete from outbox where channel_id = 'busy'`.execute(db);
  });
});
