import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, readEventsAfter } from '../../src/events/outbox.js';
import type { Executor } from '../../src/storage/database.js';
import { gate } from '../helpers/gate.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';
import { uncatalogued } from './uncatalogued.js';

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
    const before =
      (
        await db
          .selectFrom('outbox')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirst()
      )?.max ?? 0;
    const events = Array.from({ length: 40 }, (_, index) => ({ type: 'test.appended', channelId: index % 2 === 0 ? 'even' : null, data: { index } }));
    const ids = await db.transaction().execute((trx) => appendEvents(trx, uncatalogued(events), 1234));
    expect(ids).toHaveLength(40);
    const read = await readEventsAfter(db, Number(before), 100);
    expect(read.map((event) => event.id)).toEqual(ids);
    expect(read.map((event) => (event.data as unknown as { index: number }).index)).toEqual(events.map((_, index) => index));
    expect(read.map((event) => event.channelId)).toEqual(events.map((event) => event.channelId));
    expect(read.every((event) => event.createdAt === 1234 && (event.type as string) === 'test.appended')).toBe(true);
  });

  it.runIf(database === 'postgres')('draws no outbox id while another transaction holds the outbox lock', async () => {
    // The sequence as a nextval would move it (last_value alone does not tell a fresh sequence from one used once).
    const sequence = async () => (await sql<{ last_value: string; is_called: boolean }>`select last_value, is_called from outbox_id_seq`.execute(db)).rows[0];
    const waitingOnTheLock = async () =>
      Number(
        (await sql<{ waiting: string }>`select count(*) as waiting from pg_locks where locktype = 'advisory' and not granted`.execute(db)).rows[0]?.waiting,
      ) > 0;
    await db.transaction().execute((trx) => appendEvents(trx, uncatalogued([{ type: 'test.before', data: {} }]), 1));
    const release = gate();
    const locked = gate();
    // A writer that holds the lock (as appendEvents takes it) until told to commit.
    const holder = db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7263541)`.execute(trx);
      locked.open();
      await release.opened;
    });
    await locked.opened;
    const before = await sequence();
    let appended: number[] | null = null;
    // Several rows, as a message batch appends them (PostgreSQL plans a one-row insert differently).
    const waiting = db.transaction().execute(async (trx) => {
      appended = await appendEvents(trx, uncatalogued([1, 2, 3].map((n) => ({ type: 'test.waiting', data: { n } }))), 1);
    });
    try {
      // The append is at the server, waiting for the lock (not merely not sent yet)...
      for (let tries = 0; tries < 100 && !(await waitingOnTheLock()); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await waitingOnTheLock()).toBe(true);
      // ...and has drawn no id meanwhile.
      expect(appended).toBeNull();
      expect(await sequence()).toEqual(before);
    } finally {
      release.open();
    }
    await holder;
    await waiting;
    const next = Number(before?.last_value) + 1;
    expect(appended).toEqual([next, next + 1, next + 2]);
  });
});
