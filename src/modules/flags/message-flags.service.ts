import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { countMessageFlag, resetMessageFlagCount, uncountMessageFlag } from '../messages/messages.service.js';
import { flagReasonOf } from './flag-reason.js';
import { createMessageFlagsStore } from './message-flags.store.js';
import { tallyFlag } from '../stats/daily-tallies.js';
import type { ReactionsService } from '../reactions/reactions.service.js';

/** A flag as a review takes it: who flagged, why, when. */
export interface TakenFlag {
  flagger_id: string;
  reason: string | null;
  created_at: number;
}

/**
 * Clears the message's flags in the transaction `trx` of a review and answers them, newest first: the
 * count first (the message row's lock orders the clear with a concurrent flag), then the rows.
 */
export async function takeMessageFlags(trx: Executor, messageId: string): Promise<TakenFlag[]> {
  await resetMessageFlagCount(trx, messageId);
  return createMessageFlagsStore(trx).takeFlags(messageId);
}

/**
 * Flags on messages from the client API: a member of the message's channel flags a message of someone
 * else, once, optionally saying why. flagCount is the number of distinct flaggers, as for users
 * (users.store addFlag). The moderation queue lists the flags and clears them when it reviews.
 */
export function createMessageFlagsService(deps: {
  db: Executor;
  clock: Clock;
  reactions: Pick<ReactionsService, 'messageForMember' | 'requireMemberUnderLock'>;
}) {
  return {
    /** A second flag by the same flagger changes nothing, its reason included. */
    async flag(flaggerId: string, messageId: string, reasonText?: string): Promise<{ flagged: boolean; flagCount: number }> {
      const reason = flagReasonOf(reasonText);
      const message = await deps.reactions.messageForMember(flaggerId, messageId);
      if (message.user_id === flaggerId) throw new AppError('badRequest', 'You cannot flag your own message.');
      return runTransaction(deps.db, async (trx) => {
        // Judged again at commit, as a reaction is: a ban committed meanwhile refuses it.
        await deps.reactions.requireMemberUnderLock(trx, message.id, flaggerId);
        const store = createMessageFlagsStore(trx);
        const flagged = await store.addFlag(message.id, flaggerId, reason, deps.clock.now());
        if (flagged) await countMessageFlag(trx, message.id);
        await tallyFlag(trx, 'message', flagged, deps.clock.now());
        return { flagged, flagCount: await store.flagCountOf(message.id) };
      });
    },
  };
}

export type MessageFlagsService = ReturnType<typeof createMessageFlagsService>;

/**
 * An erasure withdraws the flags the user raised on messages, up to `limit` in the caller's
 * transaction `trx`, each message's flag count lowered with its flag; answers how many went.
 */
export async function withdrawMessageFlagsBy(trx: Executor, flaggerId: string, limit: number): Promise<number> {
  const store = createMessageFlagsStore(trx);
  const messageIds = await store.flaggedBy(flaggerId, limit);
  for (const messageId of messageIds) {
    await store.deleteFlag(messageId, flaggerId);
    await uncountMessageFlag(trx, messageId);
  }
  return messageIds.length;
}
