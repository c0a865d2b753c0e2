import type SQLite from 'better-sqlite3';
import type { MembershipInterval } from '../social/social.types.js';
import type { CandidateRange, CandidateRow, HistoryReads, PageRecordRow, TrayActorRow, TrayContributionRow, TrayRecordRow } from './tray.store.js';

/**
 * The social store's `intervalsOf` (a reader's community stints) as a prepared statement, for the
 * history fast path below; same rows. Call it only while holding Kysely's connection.
 */
export function createSqliteIntervalsReader(sqlite: SQLite.Database): (userId: string, since: number) => MembershipInterval[] {
  const select = sqlite.prepare<[string, number], { community_id: string; joined_at: number; left_at: number | null }>(
    'select community_id, joined_at, left_at from community_members where user_id = ? and (left_at is null or left_at >= ?)',
  );
  return (userId, since) =>
    select
      .all(userId, since)
      .map((row) => ({ communityId: row.community_id, joinedAt: Number(row.joined_at), leftAt: row.left_at === null ? null : Number(row.left_at) }));
}

/**
 * The history reads of tray.store.ts as prepared statements run straight on better-sqlite3 (the
 * same SQL and rows). A history read is a handful of small queries; through Kysely, building and
 * compiling them and the promise hops around each cost about as much as SQLite's own work, so on
 * SQLite the service runs the whole read on these, holding Kysely's one connection meanwhile
 * (`db.connection().execute`), so no transaction interleaves. Lists travel as one JSON parameter
 * (`json_each`), so each statement is prepared once whatever the list's length.
 */
export function createSqliteHistoryReads(sqlite: SQLite.Database): HistoryReads {
  const ownerPage = sqlite.prepare<[string, number, number, number], { id: number; last_update: number }>(
    'select id, last_update from tray_records where owner_key = ? and last_update < ? and last_update >= ? order by last_update desc limit ?',
  );
  const lastRead = sqlite.prepare<[string], { last_read_at: number }>('select last_read_at from tray_state where user_id = ?');
  const candidateColumns = 'select id, community_id, window_start, last_update, prev_update, top_actor_id from tray_records';
  const candidateWhere = 'owner_key in (select value from json_each(?)) and last_update >= ? and window_start < ?';
  const candidateOrder = 'order by last_update desc, id desc limit ?';
  const candidatesFirst = sqlite.prepare<[string, number, number, number], CandidateRow>(`${candidateColumns} where ${candidateWhere} ${candidateOrder}`);
  const candidatesBelow = sqlite.prepare<[string, number, number, number, number], CandidateRow>(
    `${candidateColumns} where ${candidateWhere} and last_update < ? ${candidateOrder}`,
  );
  const candidatesAfter = sqlite.prepare<[string, number, number, number, number, number, number], CandidateRow>(
    `${candidateColumns} where ${candidateWhere} and (last_update < ? or (last_update = ? and id < ?)) ${candidateOrder}`,
  );
  const pageRecords = sqlite.prepare<[string, string, string], TrayRecordRow & { read_upto: number | null; reader_acted: number }>(
    `select tray_records.*, tray_reads.read_upto,
       exists (select 1 from tray_actors where tray_actors.record_id = tray_records.id and tray_actors.actor_id = ?) as reader_acted
     from tray_records
     left join tray_reads on tray_reads.record_id = tray_records.id and tray_reads.user_id = ?
     where tray_records.id in (select value from json_each(?))`,
  );
  const contributions = sqlite.prepare<[number], TrayContributionRow>('select * from tray_contributions where record_id = ? order by at desc');
  const topActorsOf = sqlite.prepare<[number, number], TrayActorRow>('select * from tray_actors where record_id = ? order by last_at desc limit ?');
  const topActorsWithout = sqlite.prepare<[number, string, number], TrayActorRow>(
    'select * from tray_actors where record_id = ? and actor_id <> ? order by last_at desc limit ?',
  );

  return {
    ownerPage: (ownerKey, before, notBefore, limit) => ownerPage.all(ownerKey, before, notBefore, limit),
    lastReadOf: (userId) => lastRead.get(userId)?.last_read_at ?? null,
    candidates(ownerKeys: readonly string[], range: CandidateRange): CandidateRow[] {
      const keys = JSON.stringify(ownerKeys);
      const { before, from, after, limit } = range;
      if (after === null) return candidatesFirst.all(keys, from, before, limit);
      if (after.id === null) return candidatesBelow.all(keys, from, before, after.lastUpdate, limit);
      return candidatesAfter.all(keys, from, before, after.lastUpdate, after.lastUpdate, after.id, limit);
    },
    pageRecords(readerId: string, ids: readonly number[]): PageRecordRow[] {
      if (ids.length === 0) return [];
      return pageRecords
        .all(readerId, readerId, JSON.stringify(ids))
        .map(({ read_upto, reader_acted, ...row }) => ({ ...row, readUpto: read_upto, readerActed: reader_acted === 1 }));
    },
    contributionsOf: (recordId) => contributions.all(recordId),
    topActors: (recordId, limit, excludeActorId) =>
      excludeActorId === null ? topActorsOf.all(recordId, limit) : topActorsWithout.all(recordId, excludeActorId, limit),
  };
}
