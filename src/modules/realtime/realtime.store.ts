import type { Executor } from '../../storage/database.js';
import { type OutboxEvent, toOutboxEvent } from '../../events/outbox.js';

export function createRealtimeStore(db: Executor) {
  return {
    async channelIdsOf(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('channel_members')
        .select('channel_id')
        .where('user_id', '=', userId)
        .where('membership', '=', 'member')
        .execute();
      return rows.map((row) => row.channel_id);
    },

    /** What a reconnecting user missed: events of their channels, or addressed to them, after an id. */
    async eventsFor(userId: string, channelIds: readonly string[], afterId: number, limit: number): Promise<OutboxEvent[]> {
      const rows = await db
        .selectFrom('outbox')
        .selectAll()
        .where('id', '>', afterId)
        .where((eb) => {
          const audience = [eb('recipient_id', '=', userId)];
          if (channelIds.length > 0) audience.push(eb('channel_id', 'in', channelIds));
          return eb.or(audience);
        })
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toOutboxEvent);
    },
  };
}

export type RealtimeStore = ReturnType<typeof createRealtimeStore>;
