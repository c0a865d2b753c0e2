import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { BanLiftRow } from './ban-lifts.types.js';

/** The rows of one ban's reach: a channel, or the whole network (channelId null). */
const inScope = (channelId: string | null) => (eb: ExpressionBuilder<Database, 'ban_lifts'>) =>
  channelId === null ? eb('channel_id', 'is', null) : eb('channel_id', '=', channelId);

/** Scheduled lifts of timed bans: one per user and channel, or per user for a global ban. */
export function createBanLiftsStore(db: Executor) {
  return {
    async pending(userId: string, channelId: string | null): Promise<BanLiftRow | undefined> {
      return db.selectFrom('ban_lifts').selectAll().where('user_id', '=', userId).where(inScope(channelId)).executeTakeFirst();
    },

    /** Sets the lift of this ban, replacing the one pending: the partial unique index of its reach decides the conflict. */
    async upsert(row: BanLiftRow): Promise<void> {
      const changes = { lift_at: row.lift_at, created_at: row.created_at };
      await db
        .insertInto('ban_lifts')
        .values(row)
        .onConflict((conflict) =>
          row.channel_id === null
            ? conflict.column('user_id').where('channel_id', 'is', null).doUpdateSet(changes)
            : conflict.columns(['user_id', 'channel_id']).where('channel_id', 'is not', null).doUpdateSet(changes),
        )
        .execute();
    },

    async remove(userIds: readonly string[], channelId: string | null): Promise<void> {
      if (userIds.length > 0) await db.deleteFrom('ban_lifts').where('user_id', 'in', userIds).where(inScope(channelId)).execute();
    },

    async removeAllOf(userId: string): Promise<void> {
      await db.deleteFrom('ban_lifts').where('user_id', '=', userId).execute();
    },

    /** Removes a lift handled by the sweep, unless another ban replaced it meanwhile. */
    async removeHandled(row: BanLiftRow): Promise<void> {
      await db
        .deleteFrom('ban_lifts')
        .where('user_id', '=', row.user_id)
        .where(inScope(row.channel_id))
        .where('lift_at', '=', row.lift_at)
        .where('created_at', '=', row.created_at)
        .execute();
    },

    /** The lifts due at `now`, the oldest due first. */
    async due(now: number, limit: number): Promise<BanLiftRow[]> {
      return db.selectFrom('ban_lifts').selectAll().where('lift_at', '<=', now).orderBy('lift_at').orderBy('user_id').limit(limit).execute();
    },
  };
}
