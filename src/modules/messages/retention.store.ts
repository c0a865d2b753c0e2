import { sql } from 'kysely';
import type { Dialect, Executor } from '../../storage/database.js';
import * as settings from '../../storage/settings.js';

/** A message of a channel's walk: where it sits, when it was sent, whether it is already deleted. */
export interface WalkedMessage {
  id: string;
  segment: number;
  created_at: number;
  is_deleted: number;
}

/** A message of the discovery walk over ids: which channel holds it, whether it is already deleted. */
export interface DiscoveredMessage {
  id: string;
  channel_id: string;
  is_deleted: number;
}

/** A channel the run walks with its own period, and the `pending` count it saw. */
export interface ChannelPeriod {
  channelId: string;
  days: number | null;
  pending: number;
}

/**
 * The queries of message retention: channels' own periods and walk cursors (channel_retention), the
 * messages of a walk, and the run's lease row. Every read of `messages` walks the primary key or the
 * unique (channel_id, segment) index; retention adds no index of its own to `messages`.
 */
export function createRetentionStore(db: Executor, dialect: Dialect) {
  return {
    async channelRetention(channelId: string): Promise<number | null> {
      const row = await db.selectFrom('channel_retention').select('days').where('channel_id', '=', channelId).executeTakeFirst();
      return row?.days === null || row?.days === undefined ? null : Number(row.days);
    },

    /**
     * Sets (days) or clears (null) a channel's own period and marks the channel for the next run's walk:
     * messages the deployment's walk passed over under the former period are looked at again.
     */
    async setChannelRetention(channelId: string, days: number | null, now: number): Promise<void> {
      await db
        .insertInto('channel_retention')
        .values({ channel_id: channelId, days, cursor_segment: 0, pending: 1, updated_at: now })
        .onConflict((oc) => oc.column('channel_id').doUpdateSet({ days, pending: sql<number>`channel_retention.pending + 1`, updated_at: now }))
        .execute();
    },

    /** The channels a run walks by name: a period of their own that deletes, or a change not yet followed. */
    async channelsToWalk(): Promise<ChannelPeriod[]> {
      const rows = await db
        .selectFrom('channel_retention')
        .select(['channel_id', 'days', 'pending'])
        .where((eb) => eb.or([eb('days', '>', 0), eb('pending', '>', 0)]))
        .orderBy('channel_id')
        .execute();
      return rows.map((row) => ({ channelId: row.channel_id, days: row.days === null ? null : Number(row.days), pending: Number(row.pending) }));
    },

    /** The channels among these with a period of their own (0 included): the deployment's walk leaves them. */
    async channelsWithOwnPeriod(channelIds: readonly string[]): Promise<Set<string>> {
      if (channelIds.length === 0) return new Set();
      const rows = await db
        .selectFrom('channel_retention')
        .select('channel_id')
        .where('channel_id', 'in', [...channelIds])
        .where('days', 'is not', null)
        .execute();
      return new Set(rows.map((row) => row.channel_id));
    },

    /** Forgets `seen` changes of the channel's period once a walk followed them; a change made since stays. */
    async followedChanges(channelId: string, seen: number): Promise<void> {
      await db.updateTable('channel_retention').set({ pending: 0 }).where('channel_id', '=', channelId).where('pending', '=', seen).execute();
    },

    async cursorOf(channelId: string): Promise<number> {
      const row = await db.selectFrom('channel_retention').select('cursor_segment').where('channel_id', '=', channelId).executeTakeFirst();
      return Number(row?.cursor_segment ?? 0);
    },

    async moveCursor(channelId: string, segment: number, now: number): Promise<void> {
      await db
        .insertInto('channel_retention')
        .values({ channel_id: channelId, days: null, cursor_segment: segment, pending: 0, updated_at: now })
        .onConflict((oc) => oc.column('channel_id').doUpdateSet({ cursor_segment: segment }))
        .execute();
    },

    /** A channel's messages after the cursor, in segment order (the unique index (channel_id, segment)). */
    async channelAfter(channelId: string, segment: number, limit: number): Promise<WalkedMessage[]> {
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'segment', 'created_at', 'is_deleted'])
        .where('channel_id', '=', channelId)
        .where('segment', '>', segment)
        .orderBy('segment')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, segment: Number(row.segment), created_at: Number(row.created_at), is_deleted: Number(row.is_deleted) }));
    },

    /** Messages with ids in (after, before), in id order (the primary key): ids begin with their second. */
    async idsBetween(after: string, before: string, limit: number): Promise<DiscoveredMessage[]> {
      const rows = await db
        .selectFrom('messages')
        .select(['id', 'channel_id', 'is_deleted'])
        .where('id', '>', after)
        .where('id', '<', before)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, is_deleted: Number(row.is_deleted) }));
    },

    async ensureSetting(key: string): Promise<void> {
      await settings.ensureSetting(db, key, '');
    },

    /** A settings row's value, locked for this transaction; null while another instance holds it (PostgreSQL: SKIP LOCKED). */
    async claimSetting(key: string): Promise<string | null> {
      const locking = dialect === 'postgres' ? sql` for update skip locked` : sql``;
      const result = await sql<{ value: string }>`select value from settings where key = ${key}${locking}`.execute(db);
      return result.rows[0]?.value ?? null;
    },

    async writeSetting(key: string, value: string): Promise<void> {
      await settings.writeSetting(db, key, value);
    },

    async readSetting(key: string): Promise<string | null> {
      const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
      return row?.value ?? null;
    },
  };
}

export type RetentionStore = ReturnType<typeof createRetentionStore>;
