import type { Dialect, Executor } from '../../storage/database.js';
import { deliveryBody } from './webhook-schedule.js';
import { createWebhooksStore } from './webhooks.store.js';

/** What a deleted message's event now holds: the outbox id, its commit time and type, and the new payload. */
export interface RedactedEvent {
  id: number;
  type: string;
  createdAt: number;
  data: unknown;
}

/** Why a delivery of a deleted message was given up (its `last_error`). */
export const DELETED_MESSAGE_REASON = 'the message was deleted';

/**
 * The webhook side of a message delete, in the delete's transaction: every delivery made from the
 * message's event gets the redacted body, and those not made yet are given up, so no attempt sends
 * the message after its delete commits (an attempt already in flight has its body in hand).
 */
export async function redactWebhookDeliveries(trx: Executor, dialect: Dialect, events: readonly RedactedEvent[], now: number): Promise<void> {
  if (events.length === 0) return;
  const store = createWebhooksStore(trx, dialect);
  await store.rewriteBodies(events.map((event) => ({ eventId: event.id, body: deliveryBody(event) })));
  await store.cancelUndelivered(
    events.map((event) => event.id),
    DELETED_MESSAGE_REASON,
    now,
  );
}

/**
 * The webhook side of a rewrite that keeps the event (a message whose author was erased): every
 * delivery made from these events gets the new body; none is given up.
 */
export async function rewriteWebhookBodies(trx: Executor, dialect: Dialect, events: readonly RedactedEvent[]): Promise<void> {
  if (events.length === 0) return;
  await createWebhooksStore(trx, dialect).rewriteBodies(events.map((event) => ({ eventId: event.id, body: deliveryBody(event) })));
}
