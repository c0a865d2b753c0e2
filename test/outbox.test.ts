import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, readEventsAfter } from '../src/events/outbox.js';
import type { Executor } from '../src/storage/database.js';
import { startTestApp, type TestApp, testDatabases } from './helpers/test-app.js';

/**
 * appendEvents answers the new events' ids in the order it was given them, on both databases. On
 * PostgreSQL the outbox lock and the insert are one statement; the relay's exactness rests on no
 * outbox id being drawn before that lock is held (else a writer could hold a low id while another
 * commits a higher one, and a reader that moved past the higher would never see the lower).
 */
describe.each(testDatabases)('the outbox on %s', (database) => {
  let t: TestApp;
  let db: Executor;

  beforeAll(async () => {
    t = await startTestApp(database);
    db = t.storage.db;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers the ids of the appended events in the order given, as a read finds them', async () => {
    const before = (await db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst())?.max ?? 0;
    const events = Array.from({ length: 40 }, (_, index) => ({ type: 'test.appended', channelId: index % 2 === 0 ? 'even' : null, data: { index } }));
    const ids = await db.transaction().execute((trx) => appendEvents(trx, events, 1234));
    expect(ids).toHaveLength(40);
    const read = await readEventsAfter(db, Number(before), 100);
    expect(read.map((event) => event.id)).toEqual(ids);
    expect(read.map((event) => (event.data as { index: number }).index)).toEqual(events.map((_, index) => index));
    expect(read.map((event) => event.channelId)).toEqual(events.map((event) => event.channelId));
    expect(read.every((event) => event.createdAt === 1234 && event.type === 'test.appended')).toBe(true);
  });

  it.runIf(database === 'postgres')('draws no outbox id while another transaction holds the outbox lock', async () => {
    const lastValue = async () => Number((await sql<{ last_value: string }>`select last_value from outbox_id_seq`.execute(db)).rows[0]?.last_value);
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = (): void => undefined;
    const holding = new Promise<void>((resolve) => {
      locked = resolve;
    });
    // A writer that holds the lock (as appendEvents takes it) until told to commit.
    const holder = db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7263541)`.execute(trx);
      locked();
      await released;
    });
    await holding;
    const drawnBefore = await lastValue();
    let appended: number[] | null = null;
    const waiting = db.transaction().execute(async (trx) => {
      appended = await appendEvents(trx, [{ type: 'test.waiting', data: {} }], 1);
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Blocked on the lock, and no id taken meanwhile.
      expect(appended).toBeNull();
      expect(await lastValue()).toBe(drawnBefore);
    } finally {
      release();
    }
    await holder;
    await waiting;
    expect(appended).toEqual([drawnBefore + 1]);
  });
});
