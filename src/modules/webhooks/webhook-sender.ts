import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../clock.js';
import type { WebhookTargets } from './webhook-targets.js';
import type { WebhooksStore } from './webhooks.store.js';
import type { DeliveryRow } from './webhooks.types.js';

/** Where a bot's webhook goes and the secret that signs it (the bot's client secret). */
export type BotWebhookResolver = (botUserId: string) => Promise<{ url: string; secret: string } | null>;

/** What sending needs: where bots' webhooks go, the store, the retry timing, and the signal that ends requests on stop. */
export interface SenderContext {
  deps: { clock: Clock; resolve: BotWebhookResolver; targets: WebhookTargets; onRefused?: ((botUserId: string, reason: string) => void) | undefined };
  store: WebhooksStore;
  options: { baseBackoffMs: number; maxBackoffMs: number; giveUpAfterMs: number; requestTimeoutMs: number };
  stopping: AbortController;
}

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
    const request = send(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: targets.lookup, signal },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', reject);
      },
    );
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
 * One attempt of a delivery, signed afresh (the body carries the attempt number): delivered on a 2xx,
 * else retried after a doubling delay until a day after the event, or given up at once when refused.
 */
export async function attemptDelivery(ctx: SenderContext, row: DeliveryRow): Promise<void> {
  const { deps, store, options, stopping } = ctx;
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
