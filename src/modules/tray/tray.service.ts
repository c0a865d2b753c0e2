import type SQLite from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { ownerKeyOfCommunity, ownerKeyOfUser } from './tray.aggregator.js';
import { isTrayVerb } from './tray.describe.js';
import { type HistoryPage, type IntervalsOf, place, type Reads, readHistory, TRAY_RETENTION_MS } from './tray.history.js';
import { createSqliteHistoryReads, createSqliteIntervalsReader } from './tray.sqlite.js';
import { createTrayStore } from './tray.store.js';

export { TRAY_PAGE_SIZE, TRAY_RETENTION_MS, type HistoryPage, type IntervalsOf, type RecordView, type ViewActor } from './tray.history.js';

const PURGE_BATCH = 500;

export function createTrayService(deps: {
  db: Executor;
  clock: Clock;
  intervalsOf: IntervalsOf;
  /** The raw SQLite connection (storage.sqlite), null on PostgreSQL: history reads run on prepared statements. */
  sqlite?: SQLite.Database | null;
}) {
  const { db, clock } = deps;
  const store = createTrayStore(db);
  const kyselyReads: Reads = { ...store, intervalsOf: deps.intervalsOf };
  const sqliteReads: Reads | null = deps.sqlite ? { ...createSqliteHistoryReads(deps.sqlite), intervalsOf: createSqliteIntervalsReader(deps.sqlite) } : null;

  return {
    /** One page of a user's history (see readHistory), 10 records unless `pageSize` says otherwise. */
    async history(userId: string, searchAfter: number | undefined, pageSize?: number): Promise<HistoryPage> {
      const now = clock.now();
      if (sqliteReads === null) return readHistory(kyselyReads, userId, searchAfter, now, pageSize);
      // Holding Kysely's one connection for the whole read: no transaction interleaves with the raw statements.
      return db.connection().execute(() => readHistory(sqliteReads, userId, searchAfter, now, pageSize));
    },

    /** Marks one record read, as it is now; a later matching event makes it unread again. */
    async markRead(userId: string, input: { verb: string; targetId: string; targetGroup: string }): Promise<void> {
      const windowStart = /^\d{1,16}$/.test(input.targetGroup) ? Number(input.targetGroup) : null;
      if (!isTrayVerb(input.verb) || windowStart === null) throw new AppError('notFound', 'Notification record not found.');
      const ownerKey = input.verb === 'post' ? ownerKeyOfCommunity(input.targetId) : ownerKeyOfUser(userId);
      const record = await store.findRecord(ownerKey, input.verb, input.targetId, windowStart);
      if (!record) throw new AppError('notFound', 'Notification record not found.');
      if (input.verb === 'post') {
        const stints = (await deps.intervalsOf(userId, 0)).filter((stint) => stint.communityId === input.targetId);
        if (place(record, userId, stints) === null) throw new AppError('notFound', 'Notification record not found.');
      }
      await store.markRead(userId, record.id, record.last_update);
    },

    async markLastRead(userId: string): Promise<number> {
      const now = clock.now();
      await store.setLastRead(userId, now);
      return now;
    },

    /** Deletes records 90 days past their lastUpdate, a batch per transaction; answers how many. */
    async purgeExpired(): Promise<number> {
      const olderThan = clock.now() - TRAY_RETENTION_MS;
      let purged = 0;
      for (;;) {
        const count = await runTransaction(db, async (trx) => {
          const batchStore = createTrayStore(trx);
          const ids = await batchStore.expiredIds(olderThan, PURGE_BATCH);
          await batchStore.deleteRecords(ids);
          return ids.length;
        });
        purged += count;
        if (count < PURGE_BATCH) return purged;
      }
    },
  };
}

export type TrayService = ReturnType<typeof createTrayService>;

/**
 * An erasure deletes the user's own tray: the records addressed to them with their actors,
 * contributions and read marks, their read marks on other records and their last-read date.
 * With `db` (a transaction, where the caller runs one).
 */
export function eraseTrayOf(db: Executor, userId: string): Promise<void> {
  return createTrayStore(db).deleteRowsOf(ownerKeyOfUser(userId), userId);
}

/**
 * An erasure keeps the records of others where the user acted and takes the person out of them: the
 * name the user showed becomes `placeholderName` and the avatar goes. With `db`, as eraseTrayOf.
 */
export function anonymiseTrayActor(db: Executor, userId: string, placeholderName: string): Promise<void> {
  return createTrayStore(db).renameActor(userId, placeholderName);
}
