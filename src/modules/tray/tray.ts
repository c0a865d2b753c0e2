import type SQLite from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import type { EventSystem } from '../../events/index.js';
import type { OutboxEvent } from '../../events/outbox.js';
import { createRateLimiter, type RateLimiter } from '../../shared/rate-limit.js';
import type { Executor } from '../../storage/database.js';
import type { RedisTarget } from '../../storage/redis-target.js';
import { SOCIAL_EVENT_TYPES } from '../social/social.events.js';
import { applySocialEvents } from './tray.aggregator.js';
import { createTrayService, type IntervalsOf, type TrayService } from './tray.service.js';

export interface TrayOptions {
  enabled: boolean;
  networkId: string;
  publicUrl: string;
  /** Where the history rate limit is counted across instances; null: in memory. */
  redis: RedisTarget | null;
  /** How often expired records are purged. */
  purgeIntervalMs?: number;
  /** Test only (PARLEY_TRAY_CONSUMER_DELAY_MS): events are consumed no sooner than this after commit. */
  consumerDelayMs?: number;
}

export const TRAY_DISABLED_MESSAGE = 'The notification tray is not enabled on this server.';

/** Raised inside the consumer's transaction to leave a batch for later (the test-only delay). */
class NotYet extends Error {}

/**
 * The notification tray, wired: the durable consumer that builds records from social events, the
 * history rate limiter and the purge job. Its routes are the /notifications surface.
 */
export async function createTray(deps: {
  db: Executor;
  /** The raw SQLite connection (storage.sqlite), null on PostgreSQL: the history's fast path. */
  sqlite?: SQLite.Database | null;
  clock: Clock;
  events: EventSystem;
  intervalsOf: IntervalsOf;
  options: TrayOptions;
}): Promise<{ service: TrayService; limiter: RateLimiter; options: TrayOptions; stop(): Promise<void> }> {
  const { clock, events, options } = deps;
  const service = createTrayService({ db: deps.db, clock, intervalsOf: deps.intervalsOf, sqlite: deps.sqlite ?? null });
  const limiter = createRateLimiter({ redis: options.redis });
  const timers = new Set<NodeJS.Timeout>();
  let purgeTimer: NodeJS.Timeout | null = null;

  if (options.enabled) {
    const delayMs = options.consumerDelayMs ?? 0;
    await events.consumers.register(
      'tray',
      async (trx, batch: OutboxEvent[]) => {
        if (delayMs > 0) {
          const wait = Math.max(...batch.map((event) => event.createdAt)) + delayMs - clock.now();
          if (wait > 0) {
            const timer = setTimeout(() => {
              timers.delete(timer);
              void events.consumers.drain();
            }, wait + 10);
            timer.unref();
            timers.add(timer);
            throw new NotYet();
          }
        }
        await applySocialEvents(trx, batch, clock.now());
      },
      SOCIAL_EVENT_TYPES,
    );
    purgeTimer = setInterval(() => void service.purgeExpired().catch(() => undefined), options.purgeIntervalMs ?? 10 * 60_000);
    purgeTimer.unref();
  }

  return {
    service,
    limiter,
    options,
    async stop() {
      if (purgeTimer) clearInterval(purgeTimer);
      for (const timer of timers) clearTimeout(timer);
      await limiter.close();
    },
  };
}
