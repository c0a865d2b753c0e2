import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../clock.js';
import type { OutboxEvent } from '../../events/outbox.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import type { WebhookTargets } from './webhook-targets.js';
import { createWebhooksStore } from './webhooks.store.js';

/** Where a bot's webhook goes and the secret that signs it (the bot's client secret). */
export type BotWebhookResolver = (botUserId: string) => Promise<{ url: string; secret: string } | null>;

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

/** What an attempt came to: the endpoint's status, or a refusal that no retry would change. */
type AttemptOutcome = { status: number } | { refused: string };

/**
 * One POST through node:http(s) rather than fetch, for its `lookup` hook: the target's addresses are
 * checked on the answer DNS gave for this very connection. Redirects are not followed (a 3xx is a
 * failed attempt), and the response body is read and dropped.
 */
function postOnce(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal, targets: WebhookTargets): Promise<AttemptOutcome> {
  const refusal = targets.refusalOf(url);
  if (refusal !== null) return Promise.resolve({ refused: refusal });
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? https.request : http.request;
    const request = send(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: targets.lookup, signal }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      response.on('error', reject);
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EWEBHOOKTARGET') resolve({ refused: error.message });
      else reject(error);
    });
    request.end(body);
  });
}

export function signWebhookBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

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

  async function sendOne(row: Awaited<ReturnType<typeof store.claimDue>>[number]): Promise<void> {
    const attempt = row.attempts + 1;
    const now = deps.clock.now();
    const target = await deps.resolve(row.bot_user_id);
    if (target === null) {
      await store.markFailed(row.id, attempt, 'the bot has no webhook, or is banned', null, now);
      return;
    }
    const base = JSON.parse(row.body) as Record<string, unknown>;
    const body = JSON.stringify({ ...base, attempt, sentAt: now });
    let error: string | null = null;
    try {
      const outcome = await postOnce(
        new URL(target.url),
        {
          'content-type': 'application/json; charset=utf-8',
          'x-parley-event-id': String(row.event_id),
          'x-parley-signature': signWebhookBody(body, target.secret),
          'user-agent': 'Parley-Webhooks/1',
        },
        body,
        AbortSignal.any([AbortSignal.timeout(options.requestTimeoutMs), stopping.signal]),
        deps.targets,
      );
      if ('refused' in outcome) {
        // Not retried: the address stays internal until the operator allows it or moves the webhook, and
        // only deliveries scheduled or due after that go out.
        await store.markFailed(row.id, attempt, `refused: ${outcome.refused}`, null, deps.clock.now());
        deps.onRefused?.(row.bot_user_id, outcome.refused);
        return;
      }
      if (outcome.status < 200 || outcome.status >= 300) error = `HTTP ${outcome.status}`;
    } catch (cause) {
      // An abort is either the app stopping or the request timing out; say which.
      if (stopping.signal.aborted) error = 'stopped';
      else if ((cause as NodeJS.ErrnoException).code === 'ABORT_ERR') error = 'timeout';
      else error = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.name) : 'network error';
    }
    const after = deps.clock.now();
    if (error === null) {
      await store.markDelivered(row.id, attempt, after);
      return;
    }
    const delay = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** (attempt - 1));
    const next = after + delay;
    await store.markFailed(row.id, attempt, error, next - row.created_at > options.giveUpAfterMs ? null : next, after);
  }

  /** One round: what is due as of now. A retry scheduled during the round waits for the next one. */
  async function sendDue(): Promise<void> {
    const roundStart = deps.clock.now();
    while (!stopped) {
      const due = await store.claimDue(roundStart, options.requestTimeoutMs * 2, 20);
      if (due.length === 0) return;
      await Promise.all(due.map((row) => sendOne(row)));
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
      const scoped = createWebhooksStore(trx, deps.dialect);
      const now = deps.clock.now();
      // Looked up once per author and channel in the batch, not once per event: under a burst of
      // creates a batch holds dozens of messages of the same author in the same channel, and a query
      // per event was a visible share of the create path's CPU. One transaction, so the answers hold.
      const kinds = new Map<string, Promise<string | undefined>>();
      const botsOf = new Map<string, Promise<Map<string, number>>>();
      const firstId = events[0]?.id ?? 0;
      // Each bot member of a channel, with the id of the latest event that added it after the batch's
      // first event (0: it was a member before the batch).
      const audienceOf = async (channelId: string): Promise<Map<string, number>> => {
        const bots = await scoped.botMembersOf(channelId);
        const joined = new Map(bots.map((botId) => [botId, 0]));
        if (bots.length === 0) return joined;
        for (const join of await scoped.joinsAfter(channelId, firstId - 1)) {
          for (const userId of join.userIds) if (joined.has(userId)) joined.set(userId, Math.max(joined.get(userId) ?? 0, join.id));
        }
        return joined;
      };
      for (const event of events) {
        if (event.type !== 'message.created' || !event.channelId || !event.userId) continue;
        // Only what people say reaches bots: a bot's own (or another bot's) messages do not echo back.
        let kind = kinds.get(event.userId);
        if (kind === undefined) kinds.set(event.userId, (kind = scoped.kindOf(event.userId)));
        if ((await kind) !== 'user') continue;
        let botsPromise = botsOf.get(event.channelId);
        if (botsPromise === undefined) botsOf.set(event.channelId, (botsPromise = audienceOf(event.channelId)));
        const bots = await botsPromise;
        const rows = [];
        // The URL and secret are resolved when sending (outside this transaction), so a changed URL
        // or a deleted bot is seen by the next attempt. The consumer may run well after the commit (a
        // busy peer holds its cursor): a bot whose joining committed after the message was not there
        // to hear it. Decided by outbox ids, which follow commit order: instances' clocks may differ.
        // One removed since is not asked again: its row is gone, and not telling a leaver is the safe side.
        for (const [botUserId, joinedAtId] of bots) {
          if (joinedAtId > event.id) continue;
          rows.push({
            id: newObjectId(now),
            bot_user_id: botUserId,
            event_id: event.id,
            body: JSON.stringify({ id: String(event.id), type: event.type, createdAt: event.createdAt, data: event.data }),
            attempts: 0,
            next_attempt_at: now,
            last_error: null,
            delivered_at: null,
            gave_up_at: null,
            created_at: event.createdAt,
          });
        }
        await scoped.schedule(rows);
        if (rows.length > 0) kickSoon();
      }
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
