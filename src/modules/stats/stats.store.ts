import type { Executor } from '../../storage/database.js';

export interface TotalsRow {
  users: number;
  channels: number;
  messages: number;
}

/**
 * The network's totals: users and channels counted (each a scan of one table's smallest index), and
 * messages summed from the per-channel count every create and delete keeps (channels.message_count),
 * so the cost follows the number of channels, never the number of messages.
 */
export function createStatsStore(db: Executor) {
  return {
    async totals(): Promise<TotalsRow> {
      const users = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('total'))
        .executeTakeFirstOrThrow();
      const channels = await db
        .selectFrom('channels')
        .select((eb) => [eb.fn.countAll().as('total'), eb.fn.coalesce(eb.fn.sum('message_count'), eb.lit(0)).as('messages')])
        .executeTakeFirstOrThrow();
      return { users: Number(users.total), channels: Number(channels.total), messages: Number(channels.messages) };
    },
  };
}
