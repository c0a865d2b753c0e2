import type { Clock } from '../../clock.js';
import type { OutboxEvent } from '../../events/outbox.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { WebhookTargets } from './webhook-targets.js';
import { scheduleDeliveries } from './webhook-schedule.js';
import { attemptDelivery, type BotWebhookResolver, type SenderContext } from './webhook-sender.js';
import { createWebhooksStore } from './webhooks.store.js';

export { type BotWebhookResolver, signWebhookBody } from './webhook-sender.js';

export interface WebhookOptions {
  /** First retry delay; each further one doubles, up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** After this long since the event, a delivery that never succeeded is given up. */
  giveUpAfterMs: number;
  pollIntervalMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  baseBackoffMs: 1000,
  maxBackoffMs: 10 * 60_000,
  giveUpAfterMs: 24 * 3600_000,
  pollIntervalMs: 1000,
  requestTimeoutMs: 10_000,
};

/**
 * Bot webhooks. The outbox consumer schedules one delivery per (bot, message event) inside its own
 * transaction, so a restart neither loses nor doubles a delivery; the sender then tries it until a
 * 2xx or a day has passed. Each attempt's body carries the attempt number, so it is signed afresh.
 */
export function createWebhooksService(deps: {
  db: Executor;
  dialect: Dialect;
  clock: Clock;
  resolve: BotWebhookResolver;
  /** Which addresses a delivery may connect to (webhook-targets.ts). */
  targets: WebhookTargets;
  /** Told when a delivery is refused for its address (the app logs a warning the operator can act on). */
  onRefused?: (botUserId: string, reason: string) => void;
  options?: Partial<WebhookOptions>;
}) {
  const options = { ...DEFAULT_WEBHOOK_OPTIONS, ...deps.options };
  const store = createWebhooksStore(deps.db, deps.dialect);
  let timer: NodeJS.Timeout | null = null;
  let kick: NodeJS.Timeout | null = null;
  let sending: Promise<void> | null = null;
  let stopped = false;
  // Aborts the requests in flight on stop, so closing the app does not wait out a slow endpoint.
  const stopping = new AbortController();
  const sender: SenderContext = { deps, store, options, stopping };

  /** One round: what is due as of now. A retry scheduled during the round waits for the next one. */
  async function sendDue(): Promise<void> {
    const roundStart = deps.clock.now();
    while (!stopped) {
      const due = await store.claimDue(roundStart, options.requestTimeoutMs * 2, 20);
      if (due.length === 0) return;
      await Promise.all(due.map((row) => attemptDelivery(sender, row)));
    }
  }

  function tick(): Promise<void> {
    if (!sending && !stopped) {
      sending = sendDue()
        .catch(() => undefined)
        .finally(() => {
          sending = null;
        });
    }
    return sending ?? Promise.resolve();
  }

  /**
   * Sends soon after a schedule rather than at the next poll. The consumer's transaction commits
   * after `schedule` returns, so the round waits a moment; a round that runs before the commit
   * finds nothing and the poll picks the delivery up.
   */
  function kickSoon(): void {
    if (stopped || kick) return;
    kick = setTimeout(() => {
      kick = null;
      void tick();
    }, 20);
    kick.unref();
  }

  return {
    /** The durable consumer's handler: runs inside the consumer's transaction. */
    async schedule(trx: Executor, events: OutboxEvent[]): Promise<void> {
      if ((await scheduleDeliveries(createWebhooksStore(trx, deps.dialect), events, deps.clock.now())) > 0) kickSoon();
    },
    start(): void {
      if (stopped || timer) return;
      timer = setInterval(() => void tick(), options.pollIntervalMs);
      timer.unref();
      // Whatever was due before a restart goes out now rather than after the first interval.
      void tick();
    },
    /** Sends what is due now (after a schedule, and in tests). */
    sendDue: tick,
    /** Stops polling, aborts requests in flight (each counts as a failed attempt) and waits for their bookkeeping. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      if (kick) clearTimeout(kick);
      timer = null;
      kick = null;
      stopping.abort();
      if (sending) await sending;
    },
    deliveriesFor: (botUserId: string) => store.listFor(botUserId),
    /** For operators: the newest deliveries of a bot, or null when there is no such bot. */
    newestDeliveries: (botUserId: string, limit: number) => store.newestFor(botUserId, limit),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
