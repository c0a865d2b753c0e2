import { type RawBuilder, sql } from 'kysely';
import { chunks } from '../../storage/chunks.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { AuditLogTable, AuditTargetsTable } from '../../storage/schema.js';
import * as settings from '../../storage/settings.js';
import type { AuditRow } from './audit.types.js';

/** What a page of entries is read with; `at`/`id` of the entry the page continues from, and the way. */
export interface AuditPageQuery {
  actor: string | null;
  target: string | null;
  operation: string | null;
  /** Inclusive lower and exclusive upper bound of `at`, ms. */
  from: number | null;
  to: number | null;
  limit: number;
  cursor: { at: number; id: string; older: boolean } | null;
}

/**
 * The most rows one insert statement takes. Statements take a power of two of rows (64, 32, ... 1),
 * so the SQLite statement cache (storage/database.ts) keeps seven shapes per table instead of one
 * per batch size, and a batch needs few statements.
 */
const MAX_INSERT_ROWS = 64;

async function insertInShapes<T>(rows: readonly T[], insert: (part: readonly T[]) => Promise<unknown>): Promise<void> {
  let start = 0;
  for (let size = MAX_INSERT_ROWS; size >= 1; size /= 2) {
    while (rows.length - start >= size) {
      await insert(rows.slice(start, start + size));
      start += size;
    }
  }
}

/**
 * The audit trail's queries. Entries are only ever inserted, read, and deleted by the retention
 * prune: there is no update path.
 */
export function createAuditStore(db: Executor) {
  return {
    async insertEntries(entries: readonly AuditLogTable[], targets: readonly AuditTargetsTable[]): Promise<void> {
      await insertInShapes(entries, (part) => db.insertInto('audit_log').values(part).execute());
      await insertInShapes(targets, (part) => db.insertInto('audit_targets').values(part).execute());
    },

    /**
     * Newest first by (at, id); `limit + 1` rows so the caller knows whether more follow. A target
     * filter reads from the targets' (target_id, at, entry_id) index, joining the entries it finds.
     */
    async page(query: AuditPageQuery): Promise<AuditRow[]> {
      const byTarget = query.target !== null;
      const atColumn = sql.ref(byTarget ? 't.at' : 'l.at');
      const idColumn = sql.ref(byTarget ? 't.entry_id' : 'l.id');
      const conditions: RawBuilder<unknown>[] = [];
      if (query.target !== null) conditions.push(sql`t.target_id = ${query.target}`);
      if (query.actor !== null) conditions.push(sql`l.actor = ${query.actor}`);
      if (query.operation !== null) conditions.push(sql`l.operation = ${query.operation}`);
      if (query.from !== null) conditions.push(sql`${atColumn} >= ${query.from}`);
      if (query.to !== null) conditions.push(sql`${atColumn} < ${query.to}`);
      const cursor = query.cursor;
      if (cursor !== null) {
        const way = cursor.older ? sql`<` : sql`>`;
        conditions.push(sql`(${atColumn} ${way} ${cursor.at} or (${atColumn} = ${cursor.at} and ${idColumn} ${way} ${cursor.id}))`);
      }
      const from = byTarget ? sql`audit_targets t join audit_log l on l.id = t.entry_id` : sql`audit_log l`;
      const where = conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
      const newer = cursor !== null && !cursor.older;
      const order = newer ? sql`${atColumn} asc, ${idColumn} asc` : sql`${atColumn} desc, ${idColumn} desc`;
      const result = await sql<AuditRow>`select l.* from ${from} ${where} order by ${order} limit ${query.limit + 1}`.execute(db);
      const rows = result.rows.map((row) => ({
        ...row,
        at: Number(row.at),
        status: Number(row.status),
        error_code: row.error_code === null ? null : Number(row.error_code),
      }));
      return newer ? rows.reverse() : rows;
    },

    /** The oldest entries made before `before`, at most `limit` (the retention prune). */
    async idsBefore(before: number, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('audit_log').select('id').where('at', '<', before).orderBy('at').orderBy('id').limit(limit).execute();
      return rows.map((row) => row.id);
    },

    /** The retention prune's delete: the entries and their targets. */
    async deleteEntries(ids: readonly string[]): Promise<void> {
      for (const part of chunks(ids)) {
        await db.deleteFrom('audit_targets').where('entry_id', 'in', part).execute();
        await db.deleteFrom('audit_log').where('id', 'in', part).execute();
      }
    },

    /**
     * Claims this interval's run of a job kept as a settings row (`key` = when the last run began, ms),
     * as outbox pruning does: the row is locked for the transaction, skipped on PostgreSQL while another
     * instance holds it, and the run goes ahead only when none began within the interval. Call in a
     * transaction. A clock moved back (the test clock) makes the job due rather than stopping it.
     */
    async claimRun(dialect: Dialect, key: string, now: number, intervalMs: number): Promise<boolean> {
      const locking = dialect === 'postgres' ? sql` for update skip locked` : sql``;
      const result = await sql<{ value: string }>`select value from settings where key = ${key}${locking}`.execute(db);
      const row = result.rows[0];
      if (!row) return false;
      const lastRun = Number(row.value);
      if (Number.isFinite(lastRun) && now - lastRun < intervalMs && now >= lastRun) return false;
      await settings.writeSetting(db, key, String(now));
      return true;
    },

    async ensureSetting(key: string): Promise<void> {
      await settings.ensureSetting(db, key, '0');
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;
