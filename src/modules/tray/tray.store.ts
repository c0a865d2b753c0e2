import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { TrayActorsTable, TrayContributionsTable, TrayRecordsTable } from '../../storage/schema.js';
import { chunks } from '../../storage/chunks.js';
import { containingPattern } from '../../storage/like-pattern.js';

export type TrayRecordRow = Selectable<TrayRecordsTable>;
export type TrayActorRow = TrayActorsTable;
export type TrayContributionRow = TrayContributionsTable;

/** What a history read needs to place a community record before loading it in full. */
export type CandidateRow = Pick<TrayRecordRow, 'id' | 'community_id' | 'window_start' | 'last_update' | 'prev_update' | 'top_actor_id'>;

/** A record that reaches a reader's page, with that reader's read mark and whether they are one of its actors. */
export type PageRecordRow = TrayRecordRow & { readUpto: number | null; readerActed: boolean };

/**
 * The reads a history page makes. The service awaits each answer, so a backend may answer
 * synchronously: the Kysely store below, or prepared statements on SQLite (tray.sqlite.ts).
 */
export interface HistoryReads {
  ownerPage(
    ownerKey: string,
    before: number,
    notBefore: number,
    limit: number,
  ): Promise<Array<{ id: number; last_update: number }>> | Array<{ id: number; last_update: number }>;
  lastReadOf(userId: string): Promise<number | null> | number | null;
  candidates(ownerKeys: readonly string[], range: CandidateRange): Promise<CandidateRow[]> | CandidateRow[];
  pageRecords(readerId: string, ids: readonly number[]): Promise<PageRecordRow[]> | PageRecordRow[];
  contributionsOf(recordId: number): Promise<TrayContributionRow[]> | TrayContributionRow[];
  topActors(recordId: number, limit: number, excludeActorId: string | null): Promise<TrayActorRow[]> | TrayActorRow[];
}

/**
 * Community records with last_update >= `from` and window_start < `before`, newest last_update
 * first, `limit` of them after the key `after` (rows below (lastUpdate, id) in that order; a null
 * id: below lastUpdate).
 */
export interface CandidateRange {
  before: number;
  from: number;
  after: { lastUpdate: number; id: number | null } | null;
  limit: number;
}

/** bigint columns come back as numbers (storage/database.ts), but SQLite may hand back bigint-typed ids as-is. */
function normalize<T extends { id: number }>(row: T): T {
  return { ...row, id: Number(row.id) };
}

/** What the consumer writes: records, their contributions and actors, and their removal. */
function recordWrites(db: Executor) {
  return {
    /** The newest window of one owner, verb and target. */
    async latestWindow(ownerKey: string, verb: string, targetId: string): Promise<TrayRecordRow | undefined> {
      const row = await db
        .selectFrom('tray_records')
        .selectAll()
        .where('owner_key', '=', ownerKey)
        .where('verb', '=', verb)
        .where('target_id', '=', targetId)
        .orderBy('window_start', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && normalize(row);
    },

    async findRecordById(id: number): Promise<TrayRecordRow | undefined> {
      const row = await db.selectFrom('tray_records').selectAll().where('id', '=', id).executeTakeFirst();
      return row && normalize(row);
    },

    async insertRecord(row: Insertable<TrayRecordsTable>): Promise<number> {
      const inserted = await db.insertInto('tray_records').values(row).returning('id').executeTakeFirstOrThrow();
      return Number(inserted.id);
    },

    async updateRecord(id: number, changes: Partial<Omit<TrayRecordRow, 'id'>>): Promise<void> {
      await db.updateTable('tray_records').set(changes).where('id', '=', id).execute();
    },

    async addToActorsCount(id: number, delta: number): Promise<void> {
      await db
        .updateTable('tray_records')
        .set((eb) => ({ actors_count: eb('actors_count', '+', delta) }))
        .where('id', '=', id)
        .execute();
    },

    async findContribution(sourceKey: string): Promise<TrayContributionRow | undefined> {
      const row = await db.selectFrom('tray_contributions').selectAll().where('source_key', '=', sourceKey).executeTakeFirst();
      return row && { ...row, record_id: Number(row.record_id) };
    },

    /** Answers false when the source already contributed (a replayed event changes nothing). */
    async insertContribution(row: TrayContributionRow): Promise<boolean> {
      const result = await db
        .insertInto('tray_contributions')
        .values(row)
        .onConflict((oc) => oc.column('source_key').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    async deleteContribution(sourceKey: string): Promise<void> {
      await db.deleteFrom('tray_contributions').where('source_key', '=', sourceKey).execute();
    },

    /** An actor's latest remaining contribution to a record. */
    async latestContributionOf(recordId: number, actorId: string): Promise<TrayContributionRow | undefined> {
      return db
        .selectFrom('tray_contributions')
        .selectAll()
        .where('record_id', '=', recordId)
        .where('actor_id', '=', actorId)
        .orderBy('at', 'desc')
        .limit(1)
        .executeTakeFirst();
    },
  };
}

/** A record's distinct actors, each at their latest contribution. */
function actorRows(db: Executor) {
  return {
    async findActor(recordId: number, actorId: string): Promise<TrayActorRow | undefined> {
      return db.selectFrom('tray_actors').selectAll().where('record_id', '=', recordId).where('actor_id', '=', actorId).executeTakeFirst();
    },

    async insertActor(row: TrayActorRow): Promise<void> {
      await db.insertInto('tray_actors').values(row).execute();
    },

    async updateActor(recordId: number, actorId: string, changes: Pick<TrayActorRow, 'last_at' | 'name' | 'avatar_id'>): Promise<void> {
      await db.updateTable('tray_actors').set(changes).where('record_id', '=', recordId).where('actor_id', '=', actorId).execute();
    },

    async deleteActor(recordId: number, actorId: string): Promise<void> {
      await db.deleteFrom('tray_actors').where('record_id', '=', recordId).where('actor_id', '=', actorId).execute();
    },

    /** The latest distinct actors of a record, optionally without one (the reader). */
    async topActors(recordId: number, limit: number, excludeActorId: string | null = null): Promise<TrayActorRow[]> {
      let select = db.selectFrom('tray_actors').selectAll().where('record_id', '=', recordId);
      if (excludeActorId !== null) select = select.where('actor_id', '<>', excludeActorId);
      return select.orderBy('last_at', 'desc').limit(limit).execute();
    },
  };
}

/** A history page's reads (tray.sqlite.ts has the same on prepared statements). */
function historyReads(db: Executor) {
  return {
    /**
     * One owner's records below `before`, newest first: only id and last_update, read from the index
     * (owner_key, last_update) alone; the few that reach the page are loaded in full by `pageRecords`.
     */
    async ownerPage(ownerKey: string, before: number, notBefore: number, limit: number): Promise<Array<{ id: number; last_update: number }>> {
      const rows = await db
        .selectFrom('tray_records')
        .select(['id', 'last_update'])
        .where('owner_key', '=', ownerKey)
        .where('last_update', '<', before)
        .where('last_update', '>=', notBefore)
        .orderBy('last_update', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), last_update: Number(row.last_update) }));
    },

    /**
     * The live records of these owners (communities) that a page could show, in `range` (see
     * CandidateRange). Answers fewer than `limit` rows only when the range holds no more. The caller
     * reads only as far as its page needs: turning hundreds of rows into objects cost more than
     * finding them.
     */
    async candidates(ownerKeys: readonly string[], range: CandidateRange): Promise<CandidateRow[]> {
      const { before, from, after, limit } = range;
      const out: CandidateRow[] = [];
      for (const part of chunks(ownerKeys)) {
        let select = db
          .selectFrom('tray_records')
          .select(['id', 'community_id', 'window_start', 'last_update', 'prev_update', 'top_actor_id'])
          .where('owner_key', 'in', part)
          .where('last_update', '>=', from)
          .where('window_start', '<', before);
        if (after !== null) {
          const { lastUpdate, id } = after;
          select =
            id === null
              ? select.where('last_update', '<', lastUpdate)
              : select.where((eb) => eb.or([eb('last_update', '<', lastUpdate), eb.and([eb('last_update', '=', lastUpdate), eb('id', '<', id)])]));
        }
        const rows = await select.orderBy('last_update', 'desc').orderBy('id', 'desc').limit(limit).execute();
        for (const row of rows) out.push(normalize(row));
      }
      // Over several chunks, the newest `limit` of them all; the rest are read again with the next key.
      out.sort((x, y) => y.last_update - x.last_update || y.id - x.id);
      return out.slice(0, limit);
    },

    /**
     * The records that reach a reader's page, in full, each with the reader's read mark and whether
     * the reader is one of its actors: one read instead of three.
     */
    async pageRecords(readerId: string, ids: readonly number[]): Promise<PageRecordRow[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('tray_records')
        .leftJoin('tray_reads', (join) => join.onRef('tray_reads.record_id', '=', 'tray_records.id').on('tray_reads.user_id', '=', readerId))
        .selectAll('tray_records')
        .select('tray_reads.read_upto')
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('tray_actors')
                .select('tray_actors.record_id')
                .whereRef('tray_actors.record_id', '=', 'tray_records.id')
                .where('tray_actors.actor_id', '=', readerId),
            )
            .as('reader_acted'),
        )
        .where('tray_records.id', 'in', ids)
        .execute();
      return rows.map(({ read_upto, reader_acted, ...row }) => ({
        ...normalize(row),
        readUpto: read_upto === null ? null : Number(read_upto),
        // SQLite answers 0/1, PostgreSQL a boolean.
        readerActed: reader_acted === true || Number(reader_acted) === 1,
      }));
    },

    /** A record's live contributions, newest first (for a reader whose membership covers part of it). */
    async contributionsOf(recordId: number): Promise<TrayContributionRow[]> {
      return db.selectFrom('tray_contributions').selectAll().where('record_id', '=', recordId).orderBy('at', 'desc').execute();
    },
  };
}

/** Read marks, the last-read date, and the records the purge job removes. */
function readMarks(db: Executor) {
  return {
    async findRecord(ownerKey: string, verb: string, targetId: string, windowStart: number): Promise<TrayRecordRow | undefined> {
      const row = await db
        .selectFrom('tray_records')
        .selectAll()
        .where('owner_key', '=', ownerKey)
        .where('verb', '=', verb)
        .where('target_id', '=', targetId)
        .where('window_start', '=', windowStart)
        .executeTakeFirst();
      return row && normalize(row);
    },

    async markRead(userId: string, recordId: number, readUpto: number): Promise<void> {
      await db
        .insertInto('tray_reads')
        .values({ user_id: userId, record_id: recordId, read_upto: readUpto })
        .onConflict((oc) => oc.columns(['user_id', 'record_id']).doUpdateSet({ read_upto: readUpto }))
        .execute();
    },

    async lastReadOf(userId: string): Promise<number | null> {
      const row = await db.selectFrom('tray_state').select('last_read_at').where('user_id', '=', userId).executeTakeFirst();
      return row ? Number(row.last_read_at) : null;
    },

    async setLastRead(userId: string, at: number): Promise<void> {
      await db
        .insertInto('tray_state')
        .values({ user_id: userId, last_read_at: at })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_read_at: at }))
        .execute();
    },

    /** Records whose lastUpdate is older than the cut-off, a batch at a time (the purge job). */
    async expiredIds(olderThan: number, limit: number): Promise<number[]> {
      const rows = await db.selectFrom('tray_records').select('id').where('last_update', '<', olderThan).limit(limit).execute();
      return rows.map((row) => Number(row.id));
    },

    /** Removes records and everything hanging off them. */
    async deleteRecords(ids: readonly number[]): Promise<void> {
      for (const part of chunks(ids)) {
        await db.deleteFrom('tray_contributions').where('record_id', 'in', part).execute();
        await db.deleteFrom('tray_actors').where('record_id', 'in', part).execute();
        await db.deleteFrom('tray_reads').where('record_id', 'in', part).execute();
        await db.deleteFrom('tray_records').where('id', 'in', part).execute();
      }
    },
  };
}

/** An actor as tray_records.actors holds it, in JSON. */
interface StoredActor {
  id: string;
  name: string;
  avatarId?: string | null;
}

/** What the tray holds of one user: their own records and read marks, and their name in records of others. */
function personalRows(db: Executor) {
  return {
    /** The records `ownerKey` (the user's) owns with everything hanging off them, then the user's read marks and last-read date. */
    async deleteRowsOf(ownerKey: string, userId: string): Promise<void> {
      const owned = db.selectFrom('tray_records').select('id').where('owner_key', '=', ownerKey);
      await db.deleteFrom('tray_actors').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_contributions').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_reads').where('record_id', 'in', owned).execute();
      await db.deleteFrom('tray_records').where('owner_key', '=', ownerKey).execute();
      await db.deleteFrom('tray_reads').where('user_id', '=', userId).execute();
      await db.deleteFrom('tray_state').where('user_id', '=', userId).execute();
    },

    /** Wherever the actor appears (actor rows, contributions, the records' actor lists), `name` and no avatar stand instead. */
    async renameActor(actorId: string, name: string): Promise<void> {
      await db.updateTable('tray_actors').set({ name, avatar_id: null }).where('actor_id', '=', actorId).execute();
      await db.updateTable('tray_contributions').set({ name, avatar_id: null }).where('actor_id', '=', actorId).execute();
      // The id as JSON spells it.
      const pattern = containingPattern(JSON.stringify(actorId));
      const records = await db.selectFrom('tray_records').select(['id', 'actors']).where(sql<boolean>`actors like ${pattern} escape '\\'`).execute();
      for (const record of records) {
        const actors = JSON.parse(record.actors) as StoredActor[];
        const rewritten = actors.map((actor) => (actor.id === actorId ? { ...actor, name, avatarId: null } : actor));
        await db
          .updateTable('tray_records')
          .set({ actors: JSON.stringify(rewritten) })
          .where('id', '=', record.id)
          .execute();
      }
    },
  };
}

export function createTrayStore(db: Executor) {
  return { ...recordWrites(db), ...actorRows(db), ...historyReads(db), ...readMarks(db), ...personalRows(db) };
}

export type TrayStore = ReturnType<typeof createTrayStore>;
