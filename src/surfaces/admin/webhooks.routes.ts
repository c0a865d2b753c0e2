import { Type } from '@sinclair/typebox';
import { notFound } from '../../http/errors.js';
import { Id } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { DeliveryRow } from '../../modules/webhooks/webhooks.store.js';
import type { WebhooksService } from '../../modules/webhooks/webhooks.service.js';

/** A delivery as operators read it: which event, how it went, and what comes next. */
function presentDelivery(row: DeliveryRow) {
  return {
    eventId: String(row.event_id),
    attempts: row.attempts,
    lastError: row.last_error,
    state: row.delivered_at !== null ? 'delivered' : row.gave_up_at !== null ? 'given up' : 'pending',
    nextAttemptAt: row.delivered_at === null && row.gave_up_at === null ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
    gaveUpAt: row.gave_up_at,
    createdAt: row.created_at,
  };
}

/**
 * Operator routes (admin token, under /api/v2): how a bot's webhooks fare, so a failing or refused
 * endpoint is seen without reading the database.
 */
export function registerWebhookRoutes(app: TypedApp, deps: { webhooks: WebhooksService }): void {
  app.get(
    '/bots/:userId/webhooks',
    {
      schema: {
        tags: ['bots'],
        summary: "A bot's newest webhook deliveries: state (pending, delivered, given up), attempts, last error",
        params: Type.Object({ userId: Id() }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) }),
      },
    },
    async (request) => {
      const rows = await deps.webhooks.newestDeliveries(request.params.userId, request.query.limit ?? 20);
      if (rows === null) throw notFound('Bot');
      return { deliveries: rows.map(presentDelivery) };
    },
  );
}
