import { sql } from 'kysely';
import type { Dialect, Executor } from '../../storage/database.js';
import { prunedThrough } from '../../events/consumers.js';
import { type OutboxEvent, toOutboxEvent } from '../../events/outbox.js';
import { chunks } from '../../storage/chunks.js';

/** The `userIds` array of a member event's JSON text, as a PostgreSQL regular expression (its one group). */
const USER_IDS_ARRAY = '"userIds":(\\[(?:"(?:[^"\\\\]|\\\\.)*",?)*\\])';

export function createRealtimeStore(db: Executor, dialect: Dialect) {
  /**
   * Whether a `member.removed` row's `userIds` holds the user. On PostgreSQL only that array's text is
   * cast, never the whole payload: jsonb refuses an escaped NUL, which channel metadata in the same
   * payload may hold (rows written before NUL was refused), and one such row failed every resume past it.
   * The array is of ids, which hold no control character; the pattern reads a JSON array of strings.
   */
  const namesUser = (userId: string) =>
    dialect === 'postgres'
      ? sql<boolean>`case when outbox.type = 'member.removed'
          then coalesce(substring(outbox.payload from ${USER_IDS_ARRAY})::jsonb @> to_jsonb(${userId}::text), false)
          else false end`
      : sql<boolean>`exists (select 1 from json_each(outbox.payload, '$.userIds') where json_each.value = ${userId})`;

  return {
    async channelIdsOf(userId: string): Promise<string[]> {
      const rows = await db.selectFrom('channel_members').select('channel_id').where('user_id', '=', userId).where('membership', '=', 'member').execute();
      return rows.map((row) => row.channel_id);
    },

    /**
     * What a reconnecting user missed: events addressed to them, and events of the channels they are a
     * member of now, from when that membership began (`channel_members.created_at`: a removal deletes
     * the row and a re-add makes a new one), after an id. A newcomer resuming from an old id must not
     * be handed the channel's earlier history, nor what was said while they were out, nor the text of
     * a message deleted since (its `message.created` keeps it). The bound is the event's commit-time
     * clock, so an event of the very millisecond of the join may be included. And the removals that
     * name them (`member.removed`, from a removal or a ban): by then they are no member, but a client
     * that was offline must still learn that a channel is gone (a close appends such removals too,
     * naming its former members in slices).
     */
    async eventsFor(userId: string, afterId: number, limit: number): Promise<OutboxEvent[]> {
      const rows = await db
        .selectFrom('outbox')
        .selectAll()
        .where('id', '>', afterId)
        .where((eb) =>
          eb.or([
            eb('recipient_id', '=', userId),
            eb.exists(
              eb
                .selectFrom('channel_members as member')
                .select('member.user_id')
                .whereRef('member.channel_id', '=', 'outbox.channel_id')
                .where('member.user_id', '=', userId)
                .where('member.membership', '=', 'member')
                .whereRef('outbox.created_at', '>=', 'member.created_at'),
            ),
            eb.and([eb('type', '=', 'member.removed'), namesUser(userId)]),
          ]),
        )
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toOutboxEvent);
    },

    /** The id of the newest event (0 when there is none): a resume position past it is no position. */
    async newestEventId(): Promise<number> {
      const row = await db
        .selectFrom('outbox')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /**
     * The greatest id outbox retention removed (0 before any): a resume from before it would miss
     * events. Read after the replay's events (never beside them): a pruning that committed before that
     * read is seen here, and one that committed after it took nothing the read needed.
     */
    prunedThrough: (): Promise<number> => prunedThrough(db),

    /** Of these tokens (row ids), those that no longer authorize anything: revoked, expired or deleted. */
    async endedTokens(tokenIds: readonly string[], now: number): Promise<Set<string>> {
      const live = new Set<string>();
      for (const chunk of chunks(tokenIds)) {
        const rows = await db
          .selectFrom('tokens')
          .select('id')
          .where('id', 'in', chunk)
          .where('revoked_at', 'is', null)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
          .execute();
        for (const row of rows) live.add(row.id);
      }
      return new Set(tokenIds.filter((id) => !live.has(id)));
    },

    /** Of these users, those banned from the system (or deleted). */
    async bannedUsers(userIds: readonly string[]): Promise<Set<string>> {
      const allowed = new Set<string>();
      for (const chunk of chunks(userIds)) {
        const rows = await db.selectFrom('users').select('id').where('id', 'in', chunk).where('is_global_ban', '=', 0).execute();
        for (const row of rows) allowed.add(row.id);
      }
      return new Set(userIds.filter((id) => !allowed.has(id)));
    },
  };
}

export type RealtimeStore = ReturnType<typeof createRealtimeStore>;
