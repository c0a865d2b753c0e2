import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DomainEvent, OutboxEvent } from '../../src/events/catalogue.js';
import { appendEvents, latestEventId } from '../../src/events/outbox.js';
import { onEventsCommitted, runTransaction } from '../../src/storage/transactions.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';
import { type TrayKit, trayKit } from '../helpers/tray.js';

/**
 * The outbox relay is woken by the commits themselves (storage/transactions.ts), not by HTTP: an
 * event committed anywhere, a durable consumer's included, reaches the stream at once, while the
 * relay's safety-net poll is set to a minute. Reads, refused writes and writes that append nothing
 * wake nobody, and a transaction is announced once, with all its events.
 */
const POLL_MS = 60_000;
/** Far below the poll: what "at once" must mean here, with room for a loaded machine. */
const PROMPT_MS = 5_000;

function trayEvent(recipientId: string, verb: string): DomainEvent<'tray.updated'> {
  return { type: 'tray.updated', recipientId, data: { verb, targetId: 'nowhere', targetGroup: '0' } };
}

/** Resolves with the first relay delivery that holds an event `test` accepts, or rejects after PROMPT_MS. */
function nextDelivery(t: TestApp, test: (event: OutboxEvent) => boolean): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no delivery within ${PROMPT_MS} ms`));
    }, PROMPT_MS);
    const stop = t.events.relay.onEvents((events) => {
      if (!events.some(test)) return;
      clearTimeout(timer);
      stop();
      resolve(Date.now() - started);
    });
  });
}

describe.each(testDatabases)('the relay woken by commits on %s', (database) => {
  let t: TestApp;
  let kit: TrayKit;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1' }, { relayPollMs: POLL_MS });
    kit = trayKit(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it("brings a tray consumer's tray.updated to the owner's open stream at once", async () => {
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const postId = await kit.post(ann, null);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = new WebSocket(`${address.replace('http', 'ws')}/client/v1/stream?token=${ann.token}`);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.on('open', () => resolve());
        socket.on('error', reject);
      });
      const trayFrame = new Promise<{ type: string; data: { verb?: string; targetId?: string } }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no tray.updated frame within ${PROMPT_MS} ms`)), PROMPT_MS);
        socket.on('message', (raw) => {
          const frame = JSON.parse(raw.toString());
          if (frame.type !== 'tray.updated') return;
          clearTimeout(timer);
          resolve(frame);
        });
      });
      // The comment's event reaches the tray consumer, whose own transaction appends tray.updated:
      // no request is answered after that commit, so only the commit itself can wake the relay.
      const started = Date.now();
      await bob.ok('POST', `/client/v1/posts/${postId}/comments`, { text: 'nice' });
      const frame = await trayFrame;
      expect(frame.data).toMatchObject({ verb: 'comment', targetId: postId });
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    } finally {
      socket.close();
    }
  });

  it('hands over events committed with no request at all: in a transaction, and outside one', async () => {
    const recipientId = t.uniqueId('nobody');
    const inTransaction = nextDelivery(t, (event) => event.type === 'tray.updated' && event.recipientId === recipientId);
    await runTransaction(t.storage.db, (trx) => appendEvents(trx, [trayEvent(recipientId, 'in-transaction')], t.clock.now()));
    expect(await inTransaction).toBeLessThan(PROMPT_MS);

    const alone = t.uniqueId('nobody');
    const outside = nextDelivery(t, (event) => event.type === 'tray.updated' && event.recipientId === alone);
    await appendEvents(t.storage.db, [trayEvent(alone, 'autocommit')], t.clock.now());
    expect(await outside).toBeLessThan(PROMPT_MS);
  });

  it('announces a transaction once with all its events, and never one that rolled back', async () => {
    const announced: OutboxEvent[][] = [];
    const stop = onEventsCommitted(t.storage.db, (events) => announced.push([...events]));
    try {
      const recipientId = t.uniqueId('nobody');
      await runTransaction(t.storage.db, async (trx) => {
        await appendEvents(trx, [trayEvent(recipientId, 'first')], t.clock.now());
        await appendEvents(trx, [trayEvent(recipientId, 'second'), trayEvent(recipientId, 'third')], t.clock.now());
      });
      expect(announced).toHaveLength(1);
      expect(announced[0]?.map((event) => event.type === 'tray.updated' && event.data.verb)).toEqual(['first', 'second', 'third']);
      const ids = announced[0]?.map((event) => event.id) ?? [];
      expect(ids).toEqual([...ids].sort((a, b) => a - b));

      const before = await latestEventId(t.storage.db);
      await expect(
        runTransaction(t.storage.db, async (trx) => {
          await appendEvents(trx, [trayEvent(recipientId, 'rolled back')], t.clock.now());
          throw new Error('refused after the append');
        }),
      ).rejects.toThrow('refused after the append');
      expect(announced).toHaveLength(1);
      // Nothing of it is in the outbox for a poll to find either (PostgreSQL may have drawn the id).
      const stored = await t.storage.db.selectFrom('outbox').select('id').where('id', '>', before).where('recipient_id', '=', recipientId).execute();
      expect(stored).toEqual([]);
    } finally {
      stop();
    }
  });

  it('is not woken by a read, a refused write or a write that appends nothing; a create wakes it once', async () => {
    const admin = adminClient(t);
    const channelId = t.uniqueId('quiet');
    await admin.createChannel(channelId);
    const created = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'first' } });
    const messageId = created.json().data.messages[0].messageId as string;
    const announced: OutboxEvent[][] = [];
    const stop = onEventsCommitted(t.storage.db, (events) => announced.push([...events]));
    try {
      expect((await admin.call('GET', `/api/v2/message/${messageId}`)).statusCode).toBe(200);
      const refused = await admin.call('POST', '/api/v2/message', { channelId: t.uniqueId('missing'), type: 'text', data: { text: 'lost' } });
      expect(refused.statusCode).toBe(404);
      // A user is no outbox event.
      await admin.createUser(t.uniqueId('member'));
      expect(announced).toEqual([]);

      const second = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'second' } });
      expect(second.statusCode).toBe(200);
      expect(announced.map((events) => events.map((event) => event.type))).toEqual([['message.created']]);
      // The very record the create answered, as the relay hands it on.
      expect(announced[0]?.[0]?.data).toEqual(second.json().data.messages[0]);
    } finally {
      stop();
    }
  });
});
