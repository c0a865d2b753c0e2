import { sql } from 'kysely';
import type { KeysetCursor } from '../../shared/keyset.js';
import type { Executor } from '../../storage/database.js';
import { searchFold } from '../../storage/search-fold.js';
import type { ReceivedFlagRow, UserRow } from './users.types.js';
import { escapeLike } from '../../storage/like-pattern.js';

/** The columns PUT /api/v2/users may change; undefined means "leave as it is". */
export interface UserChanges {
  display_name?: string | null;
  roles?: string;
  metadata?: string;
  username?: string | null;
  password_hash?: string | null;
  firstname?: string | null;
  lastname?: string | null;
  email?: string | null;
  position?: string | null;
  status?: string | null;
  extras?: string;
  avatar?: string | null;
}

/**
 * A column folded as `searchFold` folds the search. PostgreSQL's lower() leaves a final sigma that is
 * already lower case as it is ("Νίκος" stays "νίκος") and may keep a dot above after i: replaced after
 * it, as in searchFold. On SQLite lower() is searchFold already; the replaces change nothing there.
 */
const folded = (column: 'display_name' | 'id') => sql`replace(replace(lower(${sql.ref(column)}), 'ς', 'σ'), ${'i\u0307'}, 'i')`;

/** A user made by another module for its own purpose (a bot, an admin token's account): a kind and a name. */
export interface AccountInput {
  id: string;
  kind: string;
  displayName: string | null;
  now: number;
}

/** The row of an account: the columns left out stay null. */
function accountRow(input: AccountInput) {
  return {
    id: input.id,
    kind: input.kind,
    display_name: input.displayName,
    roles: '[]',
    metadata: '{}',
    extras: '{}',
    flag_count: 0,
    is_global_ban: 0,
    created_at: input.now,
    updated_at: input.now,
  };
}

/** User rows: found, written, listed. */
function userRows(db: Executor) {
  return {
    async findById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findByIds(ids: readonly string[]): Promise<UserRow[]> {
      if (ids.length === 0) return [];
      return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
    },

    /** An account with only a kind and a name; an existing row of that id stays as it is. */
    async insertIfMissing(input: AccountInput): Promise<void> {
      await db
        .insertInto('users')
        .values(accountRow(input))
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },

    /** An account with only a kind and a name; a row of that id already there is a unique violation. */
    async insertAccount(input: AccountInput): Promise<void> {
      await db.insertInto('users').values(accountRow(input)).execute();
    },

    async insert(row: UserRow): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },

    /** Rows written as they are, in statements of at most 1,000 rows. */
    async insertMany(rows: readonly UserRow[]): Promise<void> {
      for (let start = 0; start < rows.length; start += 1000) {
        await db
          .insertInto('users')
          .values(rows.slice(start, start + 1000))
          .execute();
      }
    },

    async update(id: string, changes: UserChanges, now: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ ...changes, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    /** The row goes; the schema's cascades take what hangs off it (tokens, grants, sessions, flags on the user). */
    async delete(id: string): Promise<void> {
      await db.deleteFrom('users').where('id', '=', id).execute();
    },

    async findByUsername(username: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    },

    /**
     * One page of users in id order, after (or before) a keyset position. Answers limit + 1 rows so
     * the caller knows whether another page exists.
     */
    async listPage(query: {
      search: string | null;
      flaggedOnly: boolean;
      bannedOnly: boolean;
      limit: number;
      after: string | null;
      before: string | null;
    }): Promise<UserRow[]> {
      let select = db.selectFrom('users').selectAll();
      if (query.search) {
        const pattern = `${escapeLike(searchFold(query.search))}%`;
        // An explicit ESCAPE: SQLite has no default escape character, PostgreSQL's is the same backslash.
        select = select.where(sql<boolean>`(${folded('display_name')} like ${pattern} escape '\\' or ${folded('id')} like ${pattern} escape '\\')`);
      }
      if (query.flaggedOnly) select = select.where('flag_count', '>', 0);
      if (query.bannedOnly) select = select.where('is_global_ban', '=', 1);
      if (query.before !== null) {
        const rows = await select
          .where('id', '<', query.before)
          .orderBy('id', 'desc')
          .limit(query.limit + 1)
          .execute();
        return rows.reverse();
      }
      if (query.after !== null) select = select.where('id', '>', query.after);
      return select
        .orderBy('id', 'asc')
        .limit(query.limit + 1)
        .execute();
    },
  };
}

/** A user's standing: the global ban and the flags other users raised. */
function standingQueries(db: Executor) {
  return {
    async setGlobalBan(id: string, banned: boolean, now: number): Promise<void> {
      await db
        .updateTable('users')
        .set({ is_global_ban: banned ? 1 : 0, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    /**
     * The user row first: its lock orders a clear with concurrent flags (addFlag increments that row
     * after inserting its flag). Deleting first let a flag inserted meanwhile survive the delete and
     * its increment be zeroed after, on PostgreSQL: flagCount drifted below the rows for good.
     */
    async clearFlags(id: string, now: number): Promise<void> {
      await db.updateTable('users').set({ flag_count: 0, updated_at: now }).where('id', '=', id).execute();
      await db.deleteFrom('user_flags').where('target_user_id', '=', id).execute();
    },

    /** clearFlags answering the flags it deleted, newest first (a review keeps them in its record). */
    async takeFlags(id: string, now: number): Promise<Array<{ flagger_id: string; reason: string | null; created_at: number }>> {
      await db.updateTable('users').set({ flag_count: 0, updated_at: now }).where('id', '=', id).execute();
      const rows = await db
        .selectFrom('user_flags')
        .select(['flagger_id', 'reason', 'created_at'])
        .where('target_user_id', '=', id)
        .orderBy('created_at', 'desc')
        .orderBy('flagger_id')
        .execute();
      await db.deleteFrom('user_flags').where('target_user_id', '=', id).execute();
      return rows.map((row) => ({ ...row, created_at: Number(row.created_at) }));
    },

    /** Adds one flag per flagger, with its reason (or null); answers false when this flagger had already flagged the user. */
    async addFlag(targetId: string, flaggerId: string, reason: string | null, now: number): Promise<boolean> {
      const inserted = await db
        .insertInto('user_flags')
        .values({ target_user_id: targetId, flagger_id: flaggerId, reason, created_at: now })
        .onConflict((oc) => oc.columns(['target_user_id', 'flagger_id']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await db
        .updateTable('users')
        .set((eb) => ({ flag_count: eb('flag_count', '+', 1), updated_at: now }))
        .where('id', '=', targetId)
        .execute();
      return true;
    },

    /**
     * Deletes up to `limit` flags the flagger raised on users, each target's count lowered with it
     * (never below zero); answers how many went. An erased flagger's flags leave the targets' counts.
     */
    async withdrawFlagsBy(flaggerId: string, limit: number): Promise<number> {
      const rows = await db.selectFrom('user_flags').select('target_user_id').where('flagger_id', '=', flaggerId).limit(limit).execute();
      for (const { target_user_id } of rows) {
        await db.deleteFrom('user_flags').where('target_user_id', '=', target_user_id).where('flagger_id', '=', flaggerId).execute();
        await db
          .updateTable('users')
          .set((eb) => ({ flag_count: eb('flag_count', '-', 1) }))
          .where('id', '=', target_user_id)
          .where('flag_count', '>', 0)
          .execute();
      }
      return rows.length;
    },
  };
}

/** The flags a user received, newest first by (created_at, flagger_id); the primary key finds the target's rows. */
function receivedFlagQueries(db: Executor) {
  return {
    /** `limit + 1` flags after the cursor in its direction, answered newest first. */
    async receivedFlagsPage(targetId: string, limit: number, cursor: KeysetCursor | null): Promise<ReceivedFlagRow[]> {
      const newer = cursor !== null && !cursor.older;
      const way = newer ? 'asc' : 'desc';
      let select = db
        .selectFrom('user_flags as f')
        .leftJoin('users as u', 'u.id', 'f.flagger_id')
        .select(['f.flagger_id', 'u.display_name', 'f.reason', 'f.created_at'])
        .where('f.target_user_id', '=', targetId);
      if (cursor !== null) {
        const than = cursor.older ? '<' : '>';
        select = select.where((eb) =>
          eb.or([eb('f.created_at', than, cursor.at), eb.and([eb('f.created_at', '=', cursor.at), eb('f.flagger_id', than, cursor.id)])]),
        );
      }
      const rows = await select
        .orderBy('f.created_at', way)
        .orderBy('f.flagger_id', way)
        .limit(limit + 1)
        .execute();
      const flags = rows.map((row) => ({ ...row, created_at: Number(row.created_at) }));
      return newer ? flags.reverse() : flags;
    },
  };
}

export function createUsersStore(db: Executor) {
  return { ...userRows(db), ...standingQueries(db), ...receivedFlagQueries(db) };
}

export type UsersStore = ReturnType<typeof createUsersStore>;
