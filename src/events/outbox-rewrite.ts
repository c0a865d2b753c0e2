import type { Executor } from '../storage/database.js';

/**
 * An erasure keeps each event its user acted in at its place in the outbox, rewritten: `payload`
 * names the placeholder wherever it named the user, and so does the acting user, `userId`. In the
 * caller's transaction `trx`, with the webhook bodies made from the event.
 */
export async function reassignEvent(trx: Executor, id: number, payload: string, userId: string): Promise<void> {
  await trx.updateTable('outbox').set({ payload, user_id: userId }).where('id', '=', id).execute();
}
