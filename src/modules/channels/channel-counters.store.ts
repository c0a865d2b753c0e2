import { sql } from 'kysely';
import type { Executor, Storage } from '../../storage/database.js';

/*
 * What message creation writes to channels and channel_members, inside its own transaction and under
 * the channel lock: a channel's segment counter, message count and last activity, and each author's
 * activity and read marker (an author has read their own message). The messages module runs these on
 * its busiest path, as prepared statements on the raw SQLite connection, or as PostgreSQL statements
 * and a fragment of its one statement for the rows. Activity never moves backwards: instances whose
 * clocks differ a little write in any order.
 */

type RawSqlite = NonNullable<Storage['sqlite']>;

/** What a batch changes in one channel: its last segment after the batch, how many messages it adds, their latest time. */
export interface ChannelCounterMove {
  lastSegment: number;
  added: number;
  lastActivity: number;
}

/** An author's latest message of a batch in one channel: its time and segment. */
export interface AuthorRead {
  channelId: string;
  userId: string;
  at: number;
  segment: number;
}

/**
 * The SQLite statements, prepared once on the raw connection, run by the caller in its transaction:
 * `moveCounters.run(lastSegment, added, lastActivity, channelId)` and
 * `markAuthorRead.run(at, segment, channelId, userId)`.
 */
export function prepareSqliteCounterStatements(sqlite: RawSqlite) {
  return {
    moveCounters: sqlite.prepare<[number, number, number, string]>(
      'update channels set last_segment = ?, message_count = message_count + ?, last_activity = max(coalesce(last_activity, 0), ?) where id = ?',
    ),
    markAuthorRead: sqlite.prepare<[number, number, string, string]>(
      "update channel_members set last_activity = max(coalesce(last_activity, 0), ?), read_to_segment = max(read_to_segment, ?) where channel_id = ? and user_id = ? and membership = 'member'",
    ),
  };
}

/**
 * PostgreSQL: moves an open channel's segment counter and message count by `count` and answers where
 * the counter ended, with the channel's closed flag (a closed channel is left as it was); undefined
 * when the channel does not exist. The UPDATE takes the channel's row lock too.
 */
export function takeChannelSegments(trx: Executor, channelId: string, count: number, lastActivity: number) {
  return trx
    .updateTable('channels')
    .set((eb) => {
      const open = eb('is_closed', '=', 0);
      return {
        last_segment: eb
          .case()
          .when(open)
          .then(eb('last_segment', '+', count))
          .else(eb.ref('last_segment'))
          .end(),
        message_count: eb
          .case()
          .when(open)
          .then(eb('message_count', '+', count))
          .else(eb.ref('message_count'))
          .end(),
        last_activity: eb.case().when(open).then(sql<number>`greatest(coalesce(last_activity, 0), ${lastActivity})`).else(eb.ref('last_activity')).end(),
      };
    })
    .where('id', '=', channelId)
    .returning(['is_closed', 'last_segment'])
    .executeTakeFirst();
}

/** PostgreSQL: writes a batch's counters to a channel the caller has locked already. */
export async function moveChannelCounters(trx: Executor, channelId: string, move: ChannelCounterMove): Promise<void> {
  await trx
    .updateTable('channels')
    .set((eb) => ({
      last_segment: move.lastSegment,
      message_count: eb('message_count', '+', move.added),
      last_activity: sql<number>`greatest(coalesce(last_activity, 0), ${move.lastActivity})`,
    }))
    .where('id', '=', channelId)
    .execute();
}

/**
 * PostgreSQL: one row of the authors' VALUES list (see authorReadsUpdate), its columns and their
 * casts: a VALUES list outside an insert has no target columns to take its types from.
 */
export const AUTHOR_READ_ROW = { width: 4, casts: ['::text', '::text', '::bigint', '::integer'] } as const;

/** Appends one author's row of the VALUES list to a statement's parameters, in AUTHOR_READ_ROW's column order. */
export function pushAuthorRead(parameters: unknown[], author: AuthorRead): void {
  parameters.push(author.channelId, author.userId, author.at, author.segment);
}

/**
 * PostgreSQL: an UPDATE moving each listed author's activity and read marker in their channel, as
 * text the caller places in its own statement (a CTE's main statement) with `values`, a VALUES list
 * of AUTHOR_READ_ROW rows already numbered for that statement's parameters.
 */
export function authorReadsUpdate(values: string): string {
  return `update channel_members as member set last_activity = greatest(coalesce(member.last_activity, 0), activity.at),
         read_to_segment = greatest(member.read_to_segment, activity.segment)
       from (values ${values}) as activity (channel_id, user_id, at, segment)
       where member.channel_id = activity.channel_id and member.user_id = activity.user_id and member.membership = 'member'`;
}
