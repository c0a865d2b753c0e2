import http from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltApp } from '../../../src/app.js';
import { adminClient } from '../../helpers/admin.js';
import { blobFilesIn, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Message retention: messages older than their channel's period (its own, else
 * PARLEY_MESSAGE_RETENTION_DAYS) are deleted as an admin deletes them, in batches, by one instance at a time.
 */

const DAY = 86_400_000;

interface MessageView {
  messageId: string;
  isDeleted: boolean;
  data: Record<string, unknown>;
  fileId: string | null;
  childrenNumber: number;
}
interface Run {
  claimed: boolean;
  deleted: number;
  more: boolean;
}

async function until(test: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The admin calls of these tests, on one app (or a peer on the same database). */
function retentionClient(t: TestApp, app: BuiltApp['app'] = t.app) {
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${t.adminToken}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  return {
    call,
    async setClock(offsetMs: number): Promise<void> {
      const response = await call('PUT', '/api/v2/test-clock', { offsetMs });
      expect(response.statusCode, response.body).toBe(200);
    },
    async send(channelId: string, text: string, parentId?: string): Promise<string> {
      const response = await call('POST', '/api/v2/message', { channelId, type: 'text', data: { text }, ...(parentId ? { parentId } : {}) });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId as string;
    },
    async message(messageId: string): Promise<{ message: MessageView; channel: { messageCount: number } }> {
      const response = await call('GET', `/api/v2/message/${messageId}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    },
    async run(): Promise<Run> {
      const response = await call('POST', '/api/v2/retention/run');
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: Run }>().data;
    },
    async setRetention(channelId: string, days: number | null) {
      const response = await call('PUT', `/api/v2/channel/${channelId}/retention`, { days });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ status: string; data: { channelId: string; retentionDays: number | null; effectiveDays: number } }>();
    },
  };
}

/** A bot's endpoint that records every POST body. */
async function startReceiver() {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Every table row holding `marker`, as `table: row`. */
async function tablesHolding(t: TestApp, database: string, marker: string): Promise<string[]> {
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

/** How many `message.deleted` events the outbox holds for each of these messages. */
async function deletedEvents(t: TestApp, messageIds: readonly string[]): Promise<number[]> {
  const rows = await t.storage.db.selectFrom('outbox').select('payload').where('type', '=', 'message.deleted').execute();
  const ids = rows.map((row) => (JSON.parse(row.payload) as { messageId: string }).messageId);
  return messageIds.map((id) => ids.filter((other) => other === id).length);
}

describe.each(testDatabases)('message retention on %s', (database) => {
  let t: TestApp;
  let r: ReturnType<typeof retentionClient>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  // The test clock only moves forward here: each test starts where the last one left it.
  let offset = 0;
  const advance = async (days: number) => {
    offset += days * DAY;
    await r.setClock(offset);
  };

  beforeAll(async () => {
    t = await startTestApp(
      database,
      { PARLEY_TEST_CLOCK: '1', PARLEY_MESSAGE_RETENTION_DAYS: '30', PARLEY_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
      { webhooks: { baseBackoffMs: 50, pollIntervalMs: 50 }, retention: { batchSize: 3, pauseMs: 1 } },
    );
    r = retentionClient(t);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('deletes messages older than PARLEY_MESSAGE_RETENTION_DAYS as an admin delete does, redacting every copy', async () => {
    const admin = adminClient(t);
    const bot = await admin.call('POST', '/api/v2/bots', { displayName: 'Listener', webhookUrl: receiver.url });
    expect(bot.statusCode, bot.body).toBe(200);
    const userId = t.uniqueId('writer');
    await admin.createUser(userId, { displayName: 'Writer' });
    const token = (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 3600 })).json<{ accessToken: string }>().accessToken;
    const channelId = t.uniqueId('global');
    await admin.createChannel(channelId, { userIds: [userId, bot.json<{ userId: string }>().userId] });
    const secret = t.uniqueId('secret-words');
    // Sent by a member through the client API, which the bot's webhook hears.
    const sendAsUser = async (text: string) => {
      const response = await t.app.inject({
        method: 'POST',
        url: `/client/v1/channels/${channelId}/messages`,
        headers: { authorization: `Bearer ${token}` },
        payload: { type: 'text', data: { text } },
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId as string;
    };
    const oldIds = [await sendAsUser(`the ${secret} said once`), await sendAsUser(`${secret} again`)];
    await until(() => receiver.bodies.filter((body) => body.includes(secret)).length === 2);
    expect(await tablesHolding(t, database, secret)).not.toEqual([]);
    await advance(20);
    const freshId = await r.send(channelId, 'still young');
    await advance(11);

    const run = await r.run();
    expect(run).toMatchObject({ claimed: true, more: false });
    expect(run.deleted).toBeGreaterThanOrEqual(2);
    for (const id of oldIds) expect((await r.message(id)).message).toMatchObject({ isDeleted: true, data: {}, fileId: null });
    const fresh = await r.message(freshId);
    expect(fresh.message).toMatchObject({ isDeleted: false, data: { text: 'still young' } });
    expect(fresh.channel.messageCount).toBe(1);
    // No row keeps the text: outbox tombstones, webhook deliveries, the messages themselves.
    expect(await tablesHolding(t, database, secret)).toEqual([]);
    const deliveries = (await t.storage.db.selectFrom('webhook_deliveries').select('body').execute()).filter((row) => row.body.includes(oldIds[0] as string));
    expect(deliveries.length).toBeGreaterThan(0);
    for (const row of deliveries) expect(JSON.parse(row.body).data).toMatchObject({ isDeleted: true, data: {} });
    expect(await deletedEvents(t, [...oldIds, freshId])).toEqual([1, 1, 0]);
    // A second run finds nothing more.
    expect(await r.run()).toEqual({ claimed: true, deleted: 0, more: false });
  });

  it("applies a channel's own period over the global one, shorter, longer or for ever, until it is cleared", async () => {
    const admin = adminClient(t);
    const ids: Record<string, string> = {};
    for (const [key, days] of [
      ['short', 7],
      ['long', 60],
      ['forever', 0],
      ['plain', null],
    ] as const) {
      const channelId = t.uniqueId(key);
      await admin.createChannel(channelId);
      if (days !== null) expect((await r.setRetention(channelId, days)).data).toEqual({ channelId, retentionDays: days, effectiveDays: days });
      ids[key] = await r.send(channelId, `${key} words`);
    }
    const live = async () => {
      const state: Record<string, boolean> = {};
      for (const [key, id] of Object.entries(ids)) state[key] = !(await r.message(id)).message.isDeleted;
      return state;
    };
    await advance(10);
    await r.run();
    expect(await live()).toEqual({ short: false, long: true, forever: true, plain: true });
    await advance(31);
    await r.run();
    expect(await live()).toEqual({ short: false, long: true, forever: true, plain: false });
    const longChannel = (await r.message(ids.long as string)).channel as unknown as { channelId: string };
    const cleared = await r.setRetention(longChannel.channelId, null);
    expect(cleared).toEqual({ status: 'success', data: { channelId: longChannel.channelId, retentionDays: null, effectiveDays: 30 } });
    const shown = await r.call('GET', `/api/v2/channel/${longChannel.channelId}/retention`);
    expect(shown.json()).toEqual(cleared);
    await r.run();
    expect(await live()).toEqual({ short: false, long: false, forever: true, plain: false });
    await advance(400);
    await r.run();
    expect((await live()).forever).toBe(true);
  });

  it('removes the blobs of expired file messages and the file name with them', async () => {
    const channelId = t.uniqueId('files');
    await adminClient(t).createChannel(channelId);
    const name = t.uniqueId('plans');
    const before = blobFilesIn(t.config.dataDir).length;
    const body = multipartBody(
      [['channelId', channelId]],
      [{ name: 'file', fileName: `${name}.txt`, contentType: 'text/plain', data: Buffer.from('file bytes') }],
    );
    const sent = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/files',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': body.contentType },
      payload: body.payload,
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const fileMessage = sent.json<{ data: { messages: Array<{ messageId: string }> } }>().data.messages[0]?.messageId as string;
    expect(blobFilesIn(t.config.dataDir).length).toBe(before + 1);
    await advance(31);
    await r.run();
    expect((await r.message(fileMessage)).message).toMatchObject({ isDeleted: true, fileId: null });
    expect(blobFilesIn(t.config.dataDir).length).toBe(before);
    expect(await tablesHolding(t, database, name)).toEqual([]);
  });

  it('lets comments follow their own age: an expired parent becomes a deleted record, its younger comments stay and count', async () => {
    const channelId = t.uniqueId('thread');
    await adminClient(t).createChannel(channelId);
    const parent = await r.send(channelId, 'the question');
    await advance(20);
    const comment = await r.send(channelId, 'a late answer', parent);
    await advance(11);
    await r.run();
    expect((await r.message(parent)).message).toMatchObject({ isDeleted: true, childrenNumber: 1 });
    expect((await r.message(comment)).message).toMatchObject({ isDeleted: false, data: { text: 'a late answer' } });
    await advance(20);
    await r.run();
    expect((await r.message(parent)).message).toMatchObject({ isDeleted: true, childrenNumber: 0 });
    expect((await r.message(comment)).message.isDeleted).toBe(true);
    expect((await r.message(comment)).channel.messageCount).toBe(0);
  });

  it('walks a channel in segment order past deleted messages and comments, stopping at the first young one', async () => {
    const channelId = t.uniqueId('walk');
    await adminClient(t).createChannel(channelId);
    const first = await r.send(channelId, 'first');
    const removed = await r.send(channelId, 'removed by hand');
    const comment = await r.send(channelId, 'an old answer', first);
    const second = await r.send(channelId, 'second');
    expect((await r.call('DELETE', `/api/v2/message/${removed}`)).statusCode).toBe(200);
    await advance(20);
    const young = await r.send(channelId, 'young');
    const youngComment = await r.send(channelId, 'a young answer', first);
    await advance(11);
    expect(await r.run()).toEqual({ claimed: true, deleted: 3, more: false });
    for (const id of [first, removed, comment, second]) expect((await r.message(id)).message.isDeleted, id).toBe(true);
    for (const id of [young, youngComment]) expect((await r.message(id)).message.isDeleted, id).toBe(false);
    expect((await r.message(young)).channel.messageCount).toBe(2);
    // The message deleted by hand is not deleted twice.
    expect(await deletedEvents(t, [first, removed, comment, second, young, youngComment])).toEqual([1, 1, 1, 1, 0, 0]);
    await advance(20);
    expect(await r.run()).toEqual({ claimed: true, deleted: 2, more: false });
    expect((await r.message(young)).channel.messageCount).toBe(0);
  });

  it('deletes the old messages of a channel kept for ever once its own period is cleared', async () => {
    const channelId = t.uniqueId('kept');
    await adminClient(t).createChannel(channelId);
    await r.setRetention(channelId, 0);
    const old = await r.send(channelId, 'kept for a while');
    await advance(31);
    await r.run();
    expect((await r.message(old)).message.isDeleted).toBe(false);
    await r.setRetention(channelId, null);
    expect((await r.run()).deleted).toBe(1);
    expect((await r.message(old)).message.isDeleted).toBe(true);
  });

  it('adds no index on messages: every message create would write into it', async () => {
    const indexes =
      database === 'postgres'
        ? (
            await sql<{
              name: string;
              definition: string;
            }>`select indexname as name, indexdef as definition from pg_indexes where tablename = 'messages' and schemaname = current_schema()`.execute(
              t.storage.db,
            )
          ).rows
        : (
            await sql<{
              name: string;
              definition: string | null;
            }>`select name, sql as definition from sqlite_master where type = 'index' and tbl_name = 'messages'`.execute(t.storage.db)
          ).rows;
    expect(indexes.length).toBeGreaterThan(0);
    for (const index of indexes) expect(index.definition ?? '', index.name).not.toMatch(/created_at/);
  });

  it('refuses a bad period with a 4xx and an unknown channel with a 404, in the error envelope', async () => {
    const channelId = t.uniqueId('bad');
    await adminClient(t).createChannel(channelId);
    for (const payload of [{ days: -1 }, { days: 1.5 }, { days: 36_501 }, { days: 'x' }, {}, { days: true }]) {
      const response = await r.call('PUT', `/api/v2/channel/${channelId}/retention`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, JSON.stringify(payload)).toBeLessThan(500);
      expect(response.json()).toMatchObject({ status: 'error' });
    }
    expect((await r.call('PUT', '/api/v2/channel/nowhere-at-all/retention', { days: 3 })).statusCode).toBe(404);
    expect((await r.call('GET', '/api/v2/channel/nowhere-at-all/retention')).statusCode).toBe(404);
    const unauthenticated = await t.app.inject({ method: 'POST', url: '/api/v2/retention/run' });
    expect(unauthenticated.statusCode).toBe(401);
    expect((await r.call('GET', `/api/v2/channel/${channelId}/retention`)).json()).toEqual({
      status: 'success',
      data: { channelId, retentionDays: null, effectiveDays: 30 },
    });
  });
});

describe.each(testDatabases)('message retention batches on %s', (database) => {
  let t: TestApp;
  let r: ReturnType<typeof retentionClient>;

  beforeAll(async () => {
    t = await startTestApp(
      database,
      { PARLEY_TEST_CLOCK: '1', PARLEY_MESSAGE_RETENTION_DAYS: '1' },
      { retention: { batchSize: 5, maxBatchesPerRun: 2, pauseMs: 0 } },
    );
    r = retentionClient(t);
  });
  afterAll(() => t.close());

  it('deletes a batch per transaction up to the bound of a run, and the next run goes on', async () => {
    const channelId = t.uniqueId('many');
    await adminClient(t).createChannel(channelId);
    const ids: string[] = [];
    for (let i = 0; i < 13; i += 1) ids.push(await r.send(channelId, `message ${i}`));
    await r.setClock(2 * DAY);
    expect(await r.run()).toEqual({ claimed: true, deleted: 10, more: true });
    // Oldest first.
    const states = await Promise.all(ids.map(async (id) => (await r.message(id)).message.isDeleted));
    expect(states.filter(Boolean)).toHaveLength(10);
    expect(states.slice(0, 10).every(Boolean)).toBe(true);
    expect(await r.run()).toEqual({ claimed: true, deleted: 3, more: false });
    expect((await r.message(ids[0] as string)).channel.messageCount).toBe(0);
    expect(await deletedEvents(t, ids)).toEqual(ids.map(() => 1));
  });
});

describe.each(testDatabases)('the periodic retention job on %s', (database) => {
  it('runs by itself once the interval comes', async () => {
    const t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1', PARLEY_MESSAGE_RETENTION_DAYS: '1' }, { retention: { intervalMs: 100 } });
    try {
      const r = retentionClient(t);
      const channelId = t.uniqueId('timed');
      await adminClient(t).createChannel(channelId);
      const id = await r.send(channelId, 'soon gone');
      await r.setClock(2 * DAY);
      await until(async () => (await r.message(id)).message.isDeleted);
    } finally {
      await t.close();
    }
  });
});

describe.each(testDatabases)('message retention behind a younger message on %s', (database) => {
  it('deletes a message sent after a younger one (clocks apart) once that one expires too', async () => {
    const t = await startTestApp(database, { PARLEY_TEST_CLOCK: '1', PARLEY_MESSAGE_RETENTION_DAYS: '1' }, { retention: { batchSize: 5 } });
    try {
      const r = retentionClient(t);
      const channelId = t.uniqueId('skew');
      await adminClient(t).createChannel(channelId);
      await r.setClock(5 * DAY);
      const younger = await r.send(channelId, 'from the clock ahead');
      await r.setClock(0);
      const older = await r.send(channelId, 'from the clock behind');
      // The older one sits after the younger in the channel: the walk stops at the younger, not yet expired.
      await r.setClock(2 * DAY);
      await r.run();
      expect((await r.message(older)).message.isDeleted).toBe(false);
      await r.setClock(7 * DAY);
      expect(await r.run()).toEqual({ claimed: true, deleted: 2, more: false });
      expect((await r.message(older)).message.isDeleted).toBe(true);
      expect((await r.message(younger)).message.isDeleted).toBe(true);
    } finally {
      await t.close();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('message retention with two instances on one PostgreSQL database', () => {
  it('runs on one instance at a time: every expired message is deleted once', async () => {
    const env = { PARLEY_TEST_CLOCK: '1', PARLEY_MESSAGE_RETENTION_DAYS: '1' };
    const retention = { batchSize: 10, pauseMs: 40 };
    const t = await startTestApp('postgres', env, { retention });
    try {
      const peer = await t.startPeer(env, { retention });
      const here = retentionClient(t);
      const there = retentionClient(t, peer.app);
      const channelId = t.uniqueId('shared');
      await adminClient(t).createChannel(channelId);
      const ids: string[] = [];
      for (let i = 0; i < 200; i += 10) ids.push(...(await Promise.all(Array.from({ length: 10 }, (_, k) => here.send(channelId, `message ${i + k}`)))));
      await here.setClock(2 * DAY);
      await there.setClock(2 * DAY);
      // Both at once: one takes the claim row, the other skips it.
      const runs = await Promise.all([here.run(), there.run()]);
      expect(runs.map((run) => run.claimed).sort()).toEqual([false, true]);
      expect(runs.map((run) => run.deleted).sort((a, b) => a - b)).toEqual([0, 200]);
      // One after the other while the first is between batches: the lease keeps the second out.
      await here.setClock(4 * DAY);
      await there.setClock(4 * DAY);
      const more: string[] = [];
      for (let i = 0; i < 200; i += 10) more.push(...(await Promise.all(Array.from({ length: 10 }, (_, k) => here.send(channelId, `later ${i + k}`)))));
      await here.setClock(6 * DAY);
      await there.setClock(6 * DAY);
      const first = here.run();
      const deletedSoFar = async () =>
        Number(
          (
            await t.storage.db
              .selectFrom('outbox')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('type', '=', 'message.deleted')
              .executeTakeFirstOrThrow()
          ).n,
        );
      await until(async () => (await deletedSoFar()) > 200);
      expect(await there.run()).toEqual({ claimed: false, deleted: 0, more: false });
      expect(await first).toEqual({ claimed: true, deleted: 200, more: false });
      ids.push(...more);
      expect(await deletedEvents(t, ids)).toEqual(ids.map(() => 1));
      expect((await here.message(ids[0] as string)).channel.messageCount).toBe(0);
    } finally {
      await t.close();
    }
  });
});
