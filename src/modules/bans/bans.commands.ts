import type { Clock } from '../../clock.js';
import type { Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import type { AuditService } from '../audit/audit.service.js';
import type { AuditNote, AuditTarget } from '../audit/audit.types.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { UsersService } from '../users/users.service.js';
import { createBanLiftsStore } from './ban-lifts.store.js';

const MINUTE_MS = 60_000;

export interface BanCommandsDeps {
  db: Executor;
  clock: Clock;
  channels: Pick<ChannelsService, 'ban' | 'unban'>;
  users: Pick<UsersService, 'setGlobalBan'>;
  audit: Pick<AuditService, 'writeIn'>;
}

/** The targets an entry names, as a request naming them would: the channel, then the users. */
function targetsOf(channelId: string | null, userIds: readonly string[]): AuditTarget[] {
  const users = [...new Set(userIds)].map((id) => ({ field: channelId === null ? 'userId' : 'userIds', id }));
  return channelId === null ? users : [{ field: 'channelId', id: channelId }, ...users];
}

/**
 * Bans by hand, from a channel or from the whole network (channelId null), each one command: the ban,
 * the end of a timed ban (or the pending end cancelled, for a ban that lasts until lifted), the audit
 * entry and the outbox events commit together or not at all. The admin routes, the client API's
 * moderators and the moderation queue's reviews run these; the sweep in ban-lifts.service.ts lifts
 * the timed ones. The last ban decides: a ban replaces the pending lift, an unban cancels it.
 * `note` is the audited request's (null: the action is not audited, as a review's ban recorded by the review).
 */
export function createBanCommands(deps: BanCommandsDeps) {
  const { db, clock, channels, users, audit } = deps;

  /** The lifts of a ban just set: `minutes` from now, or none (until lifted by hand). */
  async function scheduleLifts(trx: Executor, userIds: readonly string[], channelId: string | null, minutes: number | undefined): Promise<void> {
    const lifts = createBanLiftsStore(trx);
    const unique = [...new Set(userIds)];
    if (minutes === undefined) {
      await lifts.remove(unique, channelId);
      return;
    }
    const now = clock.now();
    for (const userId of unique) await lifts.upsert({ user_id: userId, channel_id: channelId, lift_at: now + minutes * MINUTE_MS, created_at: now });
  }

  async function audited(trx: Executor, note: AuditNote | null, channelId: string | null, userIds: readonly string[]): Promise<void> {
    if (note !== null) await audit.writeIn(trx, note, targetsOf(channelId, userIds));
  }

  return {
    /** Bans the users from the channel (they leave it), lifted `minutes` from now when given. */
    async banFromChannel(note: AuditNote | null, channelId: string, userIds: string[], minutes?: number, within?: Executor): Promise<void> {
      await runTransaction(within ?? db, async (trx) => {
        await channels.ban(channelId, userIds, trx);
        await scheduleLifts(trx, userIds, channelId, minutes);
        await audited(trx, note, channelId, userIds);
      });
    },

    /** Lifts the users' bans from the channel, timed ones included. */
    async unbanFromChannel(note: AuditNote | null, channelId: string, userIds: string[]): Promise<void> {
      await runTransaction(db, async (trx) => {
        await channels.unban(channelId, userIds, trx);
        await createBanLiftsStore(trx).remove([...new Set(userIds)], channelId);
        await audited(trx, note, channelId, userIds);
      });
    },

    /** Bans the user from the network (sign-in ends), lifted `minutes` from now when given. */
    async banUser(note: AuditNote | null, userId: string, minutes?: number, within?: Executor): Promise<void> {
      await runTransaction(within ?? db, async (trx) => {
        await users.setGlobalBan(userId, true, trx);
        await scheduleLifts(trx, [userId], null, minutes);
        await audited(trx, note, null, [userId]);
      });
    },

    /** Lifts the user's global ban, a timed one included. */
    async unbanUser(note: AuditNote | null, userId: string): Promise<void> {
      await runTransaction(db, async (trx) => {
        await users.setGlobalBan(userId, false, trx);
        await createBanLiftsStore(trx).remove([userId], null);
        await audited(trx, note, null, [userId]);
      });
    },
  };
}

export type BanCommands = ReturnType<typeof createBanCommands>;
