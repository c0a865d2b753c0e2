import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import { periodicLooks } from '../../shared/periodic.js';
import type { Executor } from '../../storage/database.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { UsersService } from '../users/users.service.js';
import { createBanLiftsStore } from './ban-lifts.store.js';
import type { BanLiftRow } from './ban-lifts.types.js';

const MINUTE_MS = 60_000;
/** How often the sweep looks for lifts due. */
const LIFT_INTERVAL_MS = 30_000;
/** Lifts handled per look; the next look goes on. */
const LIFT_BATCH = 100;

export interface BanLiftsDeps {
  db: Executor;
  clock: Clock;
  /** The admin channel routes' unban, and the member row that tells whether a ban was set again. */
  channels: Pick<ChannelsService, 'unban' | 'findMember'>;
  /** The admin user routes' global unban. */
  users: Pick<UsersService, 'setGlobalBan'>;
  /** How often the sweep looks; default 30 s (tests shorten it). */
  intervalMs?: number;
  onBackgroundError: (error: unknown) => void;
}

/** A ban: of a user from one channel, or from the whole network (channelId null). */
export interface BanTarget {
  userId: string;
  channelId: string | null;
}

/** A review's ban, as moderation-queue sets it before recording the review. */
export interface ReviewBan {
  target: BanTarget;
  /** How long the review bans for; null: until lifted. */
  minutes: number | null;
  /** Whether the user was banned so before the review. */
  bannedBefore: boolean;
}

/**
 * When a review's ban is lifted. A user banned before the review stays as they were, unless an
 * earlier timed ban holds them: then the later end of the two applies (none, when the review bans
 * until lifted). A review retried after its ban committed finds the user banned already and sets no
 * lift: the ban then lasts until lifted by hand, the safe side.
 */
function reviewLiftAt(asked: number | null, bannedBefore: boolean, pending: BanLiftRow | undefined): number | null {
  if (!bannedBefore) return asked;
  if (asked === null || pending === undefined) return null;
  return Math.max(asked, pending.lift_at);
}

/** A lift that finds nothing to undo (already unbanned, channel closed, user gone) is done. */
async function ignoringUndone(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof AppError && ['alreadyUnbanned', 'notFound', 'conflict'].includes(error.kind)) return;
    throw error;
  }
}

/** Cancels every pending lift of the user's bans, in the transaction `trx` of an erasure: no sweep lifts a ban of someone being erased. */
export async function cancelLiftsOf(trx: Executor, userId: string): Promise<void> {
  await createBanLiftsStore(trx).removeAllOf(userId);
}

/**
 * Timed bans: a ban set for a number of minutes, globally or from a channel, by an admin route, a
 * client API moderator or a review of the moderation queue, is lifted by a sweep once its time is up.
 * The last ban decides: a ban by hand (bans.commands.ts) replaces the pending lift (with its own end,
 * or none when it lasts until lifted), an unban by hand cancels it, and a channel ban set again after
 * the timed one by a path that schedules nothing is left as it stands.
 */
export function createBanLifts(deps: BanLiftsDeps) {
  const { db, clock, channels, users } = deps;
  const store = createBanLiftsStore(db);

  /** Lifts one ban, unless a channel ban's row says it was set again after the lift was scheduled. */
  async function lift(row: BanLiftRow): Promise<void> {
    const { user_id: userId, channel_id: channelId } = row;
    if (channelId === null) {
      await ignoringUndone(() => users.setGlobalBan(userId, false));
      return;
    }
    const member = await channels.findMember(channelId, userId);
    // An unban and a new ban after the timed one left a newer row: that ban is not this lift's to end.
    if (member?.membership !== 'banned' || member.updated_at > row.created_at) return;
    await ignoringUndone(() => channels.unban(channelId, [userId]));
  }

  async function liftDue(): Promise<number> {
    const due = await store.due(clock.now(), LIFT_BATCH);
    for (const row of due) {
      await lift(row);
      await store.removeHandled(row);
    }
    return due.length;
  }

  let lifting: Promise<unknown> | null = null;
  const looks = periodicLooks(() => {
    if (lifting) return;
    lifting = liftDue()
      .catch((error: unknown) => deps.onBackgroundError(error))
      .finally(() => {
        lifting = null;
      });
  }, deps.intervalMs ?? LIFT_INTERVAL_MS);

  return {
    /**
     * In the transaction that records a review, after its ban was set: schedules the ban's lift (see
     * reviewLiftAt) or cancels the pending one. Answers when the ban is lifted, null for never.
     */
    async afterReviewBan(trx: Executor, ban: ReviewBan, now: number): Promise<number | null> {
      const inTrx = createBanLiftsStore(trx);
      const { userId, channelId } = ban.target;
      const pending = await inTrx.pending(userId, channelId);
      const liftAt = reviewLiftAt(ban.minutes === null ? null : now + ban.minutes * MINUTE_MS, ban.bannedBefore, pending);
      if (liftAt === null) await inTrx.remove([userId], channelId);
      else await inTrx.upsert({ user_id: userId, channel_id: channelId, lift_at: liftAt, created_at: now });
      return liftAt;
    },

    /** Lifts the bans whose time is up; answers how many lifts it handled. */
    liftDue,

    /** Looks every 30 s for bans to lift. */
    start(): void {
      looks.start();
    },

    async stop(): Promise<void> {
      looks.stop();
      await lifting;
    },
  };
}

export type BanLifts = ReturnType<typeof createBanLifts>;
