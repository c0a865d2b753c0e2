import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTransaction } from '../../src/storage/transactions.js';
import type { Executor } from '../../src/storage/database.js';
import { gate } from '../helpers/gate.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Every write transaction runs through runTransaction, which runs it again when PostgreSQL rolls it
 * back as a deadlock victim (40P01) or a serialization failure (40001). Two transactions that take
 * the same two rows in opposite orders make a real deadlock here; PostgreSQL finds it after its
 * deadlock_timeout (1 s by default) and aborts one of them.
 */
describe.runIf(testDatabases.includes('postgres'))('write transactions on PostgreSQL', () => {
  let t: TestApp;
  let db: Executor;

  beforeAll(async () => {
    t = await startTestApp('postgres');
    db = t.storage.db;
    await db
      .insertInto('settings')
      .values([
        { key: 'left', value: '0' },
        { key: 'right', value: '0' },
      ])
      .execute();
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sets `first` then `second` to `value`, waiting at `meet` in between while holding the lock on `first`. */
  function crossingWrite(first: string, second: string, value: string, arrived: () => void, meet: Promise<void>, runs: { count: number }) {
    return async (trx: Executor) => {
      runs.count += 1;
      await trx.updateTable('settings').set({ value }).where('key', '=', first).execute();
      arrived();
      await meet;
      await trx.updateTable('settings').set({ value }).where('key', '=', second).execute();
      return value;
    };
  }

  it('runs a deadlock victim again, so both crossing writers commit', async () => {
    const a = gate();
    const b = gate();
    const both = Promise.all([a.opened, b.opened]).then(() => undefined);
    const runsA = { count: 0 };
    const runsB = { count: 0 };
    const results = await Promise.all([
      runTransaction(db, crossingWrite('left', 'right', 'A', a.open, both, runsA)),
      runTransaction(db, crossingWrite('right', 'left', 'B', b.open, both, runsB)),
    ]);
    expect(results).toEqual(['A', 'B']);
    // One of the two was the victim and ran twice; the other ran once.
    expect([runsA.count, runsB.count].sort()).toEqual([1, 2]);
    const values = await db.selectFrom('settings').select(['key', 'value']).where('key', 'in', ['left', 'right']).orderBy('key').execute();
    // The victim ran last, so its value is in both rows.
    const last = runsA.count === 2 ? 'A' : 'B';
    expect(values).toEqual([
      { key: 'left', value: last },
      { key: 'right', value: last },
    ]);
  });

  it('does not run again for any other error, and leaves nothing of the failed attempt', async () => {
    let runs = 0;
    await expect(
      runTransaction(db, async (trx) => {
        runs += 1;
        await trx.updateTable('settings').set({ value: 'half-written' }).where('key', '=', 'left').execute();
        await trx.insertInto('settings').values({ key: 'right', value: 'duplicate' }).execute();
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
    expect((await db.selectFrom('settings').select('value').where('key', '=', 'left').executeTakeFirst())?.value).not.toBe('half-written');
  });
});
