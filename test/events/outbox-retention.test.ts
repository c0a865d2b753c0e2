import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Outbox retention: events older than PARLEY_OUTBOX_RETENTION_HOURS are pruned in small batches by the
 * background job, never past an event a durable consumer has not handled and never the newest; a
 * stream resuming from before the oldest kept event is closed with 4009 (reload), like any other
 * position it cannot serve.
 */

const HOUR = 3_600_000;

async function until(test: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens a stream from `since`: answers its frames once `done` holds, or its close code and reason. */
function resume(base: string, token: string, since: number, done: (types: string[]) => boolean) {
  return new Promise<{ closed: { code: number; reason: string } | null; frames: Array<{ id: number; type: string }> }>((resolve, reject) => {
    const socket = new WebSocket(`${base}/client/v1/stream?token=${token}&since=${since}`);
    const frames: Array<{ id: number; type: string }> = [];
    const timer = setTimeout(() => reject(new Error(`timed out; frames: ${JSON.stringify(frames)}`)), 10_000);
    socket.on('message', (data) => {
      frames.push(JSON.parse(data.toString()) as { id: number; type: string });
      if (done(frames.map((frame) => frame.type))) {
        clearTimeout(timer);
        socket.close();
        resolve({ closed: null, frames });
      }
    });
    socket.on('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ closed: { code, reason: reason.toString() }, frames });
    });
    socket.on('error', reject);
  });
}

describe.each(testDatabases)('outbox retention on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let base: string;

  beforeAll(async () => {
    // A short interval and tiny batches, so a run within the test takes several batches.
    t = await startTestApp(database, { PARLEY_OUTBOX_RETENTION_HOURS: '1' }, { outboxPrune: { intervalMs: 50, batchSize: 3, pauseMs: 1 } });
    admin = adminClient(t);
    base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  });
  afterAll(async () => {
    await t.close();
  });

  async function memberWithToken(channelId: string) {
    const userId = t.uniqueId('member');
    await admin.createUser(userId, { displayName: 'Member' });
    await admin.createChannel(channelId, { userIds: [userId] });
    const token = (await admin.call('POST', `/api/v2/users/${userId}/tokens`, { expiresIn: 100 * 3600 })).json<{ accessToken: string }>().accessToken;
    return { userId, token };
  }

  async function send(token: string, channelId: string, text: string): Promise<void> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/client/v1/channels/${channelId}/messages`,
      headers: { authorization: `Bearer ${token}` },
      payload: { type: 'text', data: { text } },
    });
    expect(response.statusCode, response.body).toBe(200);
  }

  const eventIds = async () => (await t.storage.db.selectFrom('outbox').select('id').orderBy('id').execute()).map((row) => Number(row.id));
  const setting = async (key: string) =>
    Number((await t.storage.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value ?? 0);

  /** Moves the clock on and waits for a pruning run that began after the move. */
  async function afterHours(hours: number): Promise<void> {
    const offset = t.clock.now() - Date.now() + hours * HOUR;
    t.clock.setOffset(offset);
    const moved = t.clock.now();
    await until(async () => (await setting('outbox_pruned_at')) >= moved);
  }

  it('prunes events past the retention, and a stream resuming from before them is told to reload', async () => {
    const channelId = t.uniqueId('old-talk');
    const { token } = await memberWithToken(channelId);
    for (let index = 0; index < 8; index++) await send(token, channelId, `old ${index}`);
    const old = await eventIds();
    await t.events.consumers.drain();

    await afterHours(2);
    await send(token, channelId, 'fresh');
    await t.events.consumers.drain();
    await until(async () => Math.min(...(await eventIds())) > (old.at(-1) ?? 0));
    const kept = await eventIds();
    expect(kept.filter((id) => old.includes(id))).toEqual([]);
    expect(await setting('outbox_pruned_through')).toBe(old.at(-1));

    // From the start, or from any id before the last one pruned: events are missing, reload.
    for (const since of [0, (old.at(-1) ?? 0) - 1]) {
      const answer = await resume(base, token, since, () => false);
      expect(answer.closed?.code).toBe(4009);
      expect(answer.closed?.reason).toContain('reload');
      expect(answer.frames).toEqual([]);
    }
    // From the last event pruned (the client saw it): nothing is missing.
    const answer = await resume(base, token, old.at(-1) ?? 0, (types) => types.includes('message.created'));
    expect(answer.closed).toBeNull();
    expect(answer.frames.map((frame) => frame.type)).toEqual(['message.created']);
  });

  it('keeps the newest event whatever its age, so a stream that saw it resumes', async () => {
    await t.events.consumers.drain();
    const newest = Math.max(...(await eventIds()));
    await afterHours(2);
    expect(await eventIds()).toEqual([newest]);
    const channelId = t.uniqueId('after-quiet');
    const { token } = await memberWithToken(channelId);
    const answer = await resume(base, token, newest, (types) => types.includes('member.added'));
    expect(answer.closed).toBeNull();
  });

  it('never prunes past a consumer that has not handled its events, and the consumer gets them all', async () => {
    const channelId = t.uniqueId('held');
    const { token } = await memberWithToken(channelId);
    let holding = true;
    const handled: string[] = [];
    await t.events.consumers.register(
      'laggard',
      async (_trx, events) => {
        if (holding) throw new Error('not yet');
        for (const event of events) handled.push(String((event.data.data as { text?: unknown }).text));
      },
      ['message.created'],
    );
    const cursor = async () =>
      Number((await t.storage.db.selectFrom('outbox_consumers').select('last_id').where('name', '=', 'laggard').executeTakeFirst())?.last_id);
    const start = await cursor();
    for (let index = 0; index < 5; index++) await send(token, channelId, `held ${index}`);
    const unhandled = (await eventIds()).filter((id) => id > start);
    // The other consumers (the statistics gather for a second) catch up: only the laggard holds events back.
    await t.events.consumers.drain();

    await afterHours(2);
    await send(token, channelId, 'later');
    await afterHours(0);
    // Everything up to the laggard's cursor went; nothing after it did.
    expect(await cursor()).toBe(start);
    expect(await setting('outbox_pruned_through')).toBeLessThanOrEqual(start);
    expect(Math.min(...(await eventIds()))).toBe(unhandled[0]);

    holding = false;
    await t.events.consumers.drain();
    expect(handled).toEqual(['held 0', 'held 1', 'held 2', 'held 3', 'held 4', 'later']);
    // Handled: the next run takes them.
    await afterHours(0);
    await until(async () => !(await eventIds()).some((id) => unhandled.includes(id)));
  });
});
