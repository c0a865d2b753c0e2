import type { KeysetCursor } from '../../shared/keyset.js';
import type { Executor } from '../../storage/database.js';
import type { SessionRow } from './sessions.store.js';

/** A live login session with the name of the user it signs in. */
export interface LiveSessionRow extends SessionRow {
  display_name: string | null;
}

/** Reads of every user's live login sessions, newest first by (created_at, id): the operator's "who is signed in". */
export function createLiveSessionsStore(db: Executor) {
  return {
    /** Up to limit + 1 live sessions after the cursor in its direction (newest first), optionally of one user. */
    async page(now: number, userId: string | null, limit: number, cursor: KeysetCursor | null): Promise<LiveSessionRow[]> {
      let select = db
        .selectFrom('login_sessions as s')
        .leftJoin('users as u', 'u.id', 's.user_id')
        .selectAll('s')
        .select('u.display_name')
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', now);
      if (userId !== null) select = select.where('s.user_id', '=', userId);
      const newer = cursor !== null && !cursor.older;
      if (cursor !== null) {
        const way = cursor.older ? '<' : '>';
        select = select.where((eb) => eb.or([eb('s.created_at', way, cursor.at), eb.and([eb('s.created_at', '=', cursor.at), eb('s.id', way, cursor.id)])]));
      }
      const order = newer ? 'asc' : 'desc';
      const rows = await select
        .orderBy('s.created_at', order)
        .orderBy('s.id', order)
        .limit(limit + 1)
        .execute();
      const typed = rows.map((row) => ({
        ...row,
        auth_time: Number(row.auth_time),
        expires_at: Number(row.expires_at),
        created_at: Number(row.created_at),
        last_seen_at: row.last_seen_at === null ? null : Number(row.last_seen_at),
      }));
      return newer ? typed.reverse() : typed;
    },
  };
}
