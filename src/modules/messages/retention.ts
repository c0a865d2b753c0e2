import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { notFound } from '../../shared/errors.js';
import { periodicLooks } from '../../shared/periodic.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { truncateWal } from '../../storage/wal-truncate.js';
import { createMessageLookups } from './lookups.store.js';
import { createMediaSweep } from './media-sweep.js';
import { deleteMessagesIn } from './messages.service.js';
import { createMessagesStore } from './messages.store.js';
import { createRetentionStore, type WalkedMessage } from './retention.store.js';

const DAY_MS = 86_400_000;
/** The settings row a run holds while it works (`<owner> <expires at, ms>`), and when the last run began. */
const LEASE_KEY = 'message_retention_lease';
const RUN_AT_KEY = 'message_retention_run_at';
/** The last id the deployment's walk over ids passed. */
const ID_CURSOR_KEY = 'message_retention_id_cursor';
/** Ids read per page of that walk. */
const DISCOVERY_PAGE = 1000;

export interface RetentionOptions {
  /** How often each instance looks; a run begins at most once per interval in the whole deployment. */
  intervalMs: number;
  /** Messages a channel's walk reads, and at most deletes, per transaction (at most 900, one `in` list). */
  batchSize: number;
  /** The pause between two batches, so other writers get the database in between. */
  pauseMs: number;
  /** Batches per run; what is left waits for the next run. */
  maxBatchesPerRun: number;
  /** How long a run's claim lasts without a batch renewing it (an instance that died lets go). */
  leaseMs: number;
}

export const DEFAULT_RETENTION_OPTIONS: RetentionOptions = { intervalMs: 10 * 60_000, batchSize: 500, pauseMs: 20, maxBatchesPerRun: 200, leaseMs: 60_000 };

/** What a run did: whether this instance ran it, how many messages it deleted, whether expired ones remain. */
export interface RetentionRun {
  claimed: boolean;
  deleted: number;
  more: boolean;
}

/** A channel's retention as the admin API shows it. */
export interface ChannelRetention {
  channelId: string;
  /** The channel's own period in days (0: for ever), or null when the deployment's applies. */
  retentionDays: number | null;
  /** The period that applies, in days; 0 keeps messages for ever. */
  effectiveDays: number;
}

export interface RetentionDeps {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  blobs: BlobStore;
  /** PARLEY_MESSAGE_RETENTION_DAYS; 0 keeps messages for ever. */
  globalDays: number;
  options?: Partial<RetentionOptions>;
  onError?: (error: unknown) => void;
}

/**
 * Message retention: messages older than their channel's period (its own, else the deployment's) are
 * deleted as an admin deletes them (messages.service.ts deleteMessagesIn), a batch per transaction
 * with a pause in between. A run claims the `message_retention_lease` settings row (FOR UPDATE SKIP
 * LOCKED on PostgreSQL) and every batch renews it in its own transaction, so one instance of the
 * deployment runs at a time; the periodic look also waits for the interval since the last run began.
 */
export function createMessageRetention(deps: RetentionDeps) {
  const options: RetentionOptions = { ...DEFAULT_RETENTION_OPTIONS, ...deps.options };
  const batchSize = Math.min(900, Math.max(1, options.batchSize));
  const { db, dialect, clock } = deps;
  const store = createRetentionStore(db, dialect);
  const lookups = createMessageLookups(db);
  const { sweepDeletedMedia } = createMediaSweep({ store: createMessagesStore(db, dialect), blobs: deps.blobs, onBackgroundError: deps.onError });
  const looks = periodicLooks(() => tick(), options.intervalMs);
  let running: Promise<RetentionRun> | null = null;
  let stopped = false;
  /** Deletes committed whose older copies may still be in the SQLite WAL (wal-truncate.ts). */
  let walOwed = false;

  /** Takes or renews the lease for `owner`, in the caller's transaction; `due` also asks that the interval has passed. */
  async function claim(trx: Executor, owner: string, due: boolean): Promise<boolean> {
    const scoped = createRetentionStore(trx, dialect);
    const lease = await scoped.claimSetting(LEASE_KEY);
    if (lease === null) return false;
    const [holder, expires] = lease.split(' ');
    if (holder !== owner && Number(expires) > Date.now()) return false;
    if (due) {
      const lastRun = Number((await scoped.readSetting(RUN_AT_KEY)) || 0);
      const now = clock.now();
      // A clock moved back by more than an interval (the test clock) must not stop runs until it catches up.
      if (now - lastRun < options.intervalMs && lastRun - now <= options.intervalMs) return false;
    }
    if (holder !== owner) await scoped.writeSetting(RUN_AT_KEY, String(clock.now()));
    await scoped.writeSetting(LEASE_KEY, `${owner} ${Date.now() + options.leaseMs}`);
    return true;
  }

  /**
   * One step of a channel's walk in one transaction, under the lease: the messages after the channel's
   * cursor in segment order, taken while deleted or sent before `before` (segments grow with time in a
   * channel, comments included, so the first live message not yet expired ends the walk); the live
   * ones are deleted and the cursor moves past all taken. Null when the lease went to another instance.
   */
  async function walkStep(owner: string, channelId: string, before: number): Promise<{ taken: number; deleted: number; done: boolean } | null> {
    const outcome = await runTransaction(db, async (trx) => {
      if (!(await claim(trx, owner, false))) return null;
      const scoped = createRetentionStore(trx, dialect);
      const rows = await scoped.channelAfter(channelId, await scoped.cursorOf(channelId), batchSize);
      const taken: WalkedMessage[] = [];
      for (const row of rows) {
        if (row.is_deleted === 0 && row.created_at >= before) break;
        taken.push(row);
      }
      const done = taken.length < rows.length || rows.length < batchSize;
      const last = taken.at(-1);
      if (last === undefined) return { taken: 0, deleted: 0, media: false, done };
      const live = taken.filter((row) => row.is_deleted === 0).map((row) => row.id);
      const deleted = live.length === 0 ? [] : await deleteMessagesIn(trx, dialect, live, clock.now());
      await scoped.moveCursor(channelId, last.segment, clock.now());
      return { taken: taken.length, deleted: deleted.length, media: deleted.some((row) => row.media !== null), done };
    });
    // The sweep reads committed state only, so blobs go once their messages' deletes committed.
    if (outcome?.media) await sweepDeletedMedia();
    return outcome;
  }

  /** Moves the deployment's walk over ids past `id`, under the lease; false when the lease went elsewhere. */
  async function passIds(owner: string, id: string): Promise<boolean> {
    return runTransaction(db, async (trx) => {
      if (!(await claim(trx, owner, false))) return false;
      await createRetentionStore(trx, dialect).writeSetting(ID_CURSOR_KEY, id);
      return true;
    });
  }

  /**
   * The batches of a run: first the channels named in channel_retention (a period of their own that
   * deletes, or a change of period not yet followed), then the deployment's period.
   *
   * The deployment's period finds its channels by walking the primary key: ids begin with the second
   * their message was sent (newObjectId(created_at)), so the ids below the cutoff's second are exactly
   * the messages it expires, and a cursor (the settings row `message_retention_id_cursor`) remembers how
   * far the walk went. Each page of ids names the channels holding live expired messages; each is walked
   * from its own cursor. A run thus reads each message once in its life on the id walk and once on its
   * channel's walk (cost per run: the messages that expired since the last run, plus one probe per
   * channel in channel_retention), where going over every channel would cost one probe per channel of
   * the deployment, idle ones included, every run. A message its channel's walk could not reach yet
   * (a younger one sits before it, sent a moment later by another request) comes back with that younger
   * one, whose id is above the cursor until it expires.
   */
  async function work(owner: string): Promise<{ deleted: number; more: boolean }> {
    const now = clock.now();
    let budget = options.maxBatchesPerRun;
    let deleted = 0;
    let wrote = false;
    const pause = () => new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    // Walks one channel until nothing expired is left (true) or the run stops: budget, lease, stop().
    const walk = async (channelId: string, before: number): Promise<boolean> => {
      for (;;) {
        if (budget <= 0 || stopped) return false;
        if (wrote) await pause();
        const outcome = await walkStep(owner, channelId, before);
        if (outcome === null) return false;
        deleted += outcome.deleted;
        // A step that found nothing to take is one indexed read: only steps that write spend the budget.
        if (outcome.taken > 0) {
          budget -= 1;
          wrote = true;
        }
        if (outcome.done) return true;
      }
    };
    const stop = () => ({ deleted, more: budget <= 0 });
    for (const channel of await store.channelsToWalk()) {
      const days = channel.days ?? deps.globalDays;
      if (days <= 0) continue;
      if (!(await walk(channel.channelId, now - days * DAY_MS))) return stop();
      if (channel.pending > 0) await store.followedChanges(channel.channelId, channel.pending);
    }
    if (deps.globalDays <= 0) return { deleted, more: false };
    const cutoff = now - deps.globalDays * DAY_MS;
    const below = Math.max(0, Math.floor(cutoff / 1000))
      .toString(16)
      .padStart(8, '0');
    for (;;) {
      if (stopped) return stop();
      const page = await store.idsBetween((await store.readSetting(ID_CURSOR_KEY)) ?? '', below, DISCOVERY_PAGE);
      const last = page.at(-1);
      if (last === undefined) return { deleted, more: false };
      const channels = [...new Set(page.filter((row) => row.is_deleted === 0).map((row) => row.channel_id))];
      const own = await store.channelsWithOwnPeriod(channels);
      for (const channelId of channels) if (!own.has(channelId) && !(await walk(channelId, cutoff))) return stop();
      // The cursor moves once every channel of the page is walked: a run cut short reads the page again.
      if (!(await passIds(owner, last.id))) return stop();
      if (page.length < DISCOVERY_PAGE) return { deleted, more: false };
    }
  }

  /** A run, when this instance claims it: `due` waits for the interval (the periodic look); a run asked for goes at once. */
  async function run(due: boolean): Promise<RetentionRun> {
    const owner = randomUUID();
    await store.ensureSetting(LEASE_KEY);
    await store.ensureSetting(RUN_AT_KEY);
    await store.ensureSetting(ID_CURSOR_KEY);
    if (!(await runTransaction(db, (trx) => claim(trx, owner, due)))) return { claimed: false, deleted: 0, more: false };
    try {
      const outcome = await work(owner);
      // The deleted texts' older copies leave the WAL once their deletes committed; a truncation that
      // failed is owed by this instance's next run, which may delete nothing.
      if (outcome.deleted > 0) walOwed = true;
      if (walOwed) {
        await truncateWal(db, dialect);
        walOwed = false;
      }
      return { claimed: true, ...outcome };
    } finally {
      await runTransaction(db, async (trx) => {
        if ((await createRetentionStore(trx, dialect).claimSetting(LEASE_KEY))?.startsWith(`${owner} `))
          await createRetentionStore(trx, dialect).writeSetting(LEASE_KEY, '');
      });
    }
  }

  function look(due: boolean): Promise<RetentionRun> {
    if (running) return running.then(() => ({ claimed: false, deleted: 0, more: false }));
    const current = run(due).finally(() => {
      running = null;
    });
    running = current;
    return current;
  }

  const tick = () =>
    void look(true).catch((error: unknown) => {
      deps.onError?.(error);
    });

  async function existingChannel(channelId: string): Promise<void> {
    if (!(await lookups.channel(channelId))) throw notFound('Channel');
  }

  return {
    /** A run now, unless another instance (or this one) is running: the admin API's. */
    runNow: (): Promise<RetentionRun> => look(false),
    /** The periodic look's run: only when no run began within the interval. */
    runIfDue: (): Promise<RetentionRun> => look(true),

    async channelRetention(channelId: string): Promise<ChannelRetention> {
      await existingChannel(channelId);
      const days = await store.channelRetention(channelId);
      return { channelId, retentionDays: days, effectiveDays: days ?? deps.globalDays };
    },

    /** Sets (days; 0 keeps for ever) or clears (null: the deployment's period applies) a channel's own period. */
    async setChannelRetention(channelId: string, days: number | null): Promise<ChannelRetention> {
      await existingChannel(channelId);
      await store.setChannelRetention(channelId, days, clock.now());
      return { channelId, retentionDays: days, effectiveDays: days ?? deps.globalDays };
    },

    start(): void {
      if (!stopped) looks.start();
    },

    async stop(): Promise<void> {
      stopped = true;
      looks.stop();
      await running?.catch(() => undefined);
    },
  };
}

export type MessageRetention = ReturnType<typeof createMessageRetention>;
