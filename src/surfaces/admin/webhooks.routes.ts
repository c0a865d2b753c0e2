import { Type } from '@sinclair/typebox';
import { notFound } from '../../shared/errors.js';
import { Id, Nullable, StringEnum } from '../../shared/schemas.js';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { DeliveryRow } from '../../modules/webhooks/webhooks.types.js';
import type { WebhooksService } from '../../modules/webhooks/webhooks.service.js';
import { networkAdmins } from './console-access.js';

const DELIVERY_STATES = ['pending', 'delivered', 'given up'] as const;

/** A delivery as operators read it. Its times are milliseconds since the epoch, as the tray's are. */
const DeliveryRecord = Type.Object(
  {
    eventId: Type.String({ description: 'The event delivered (X-Parley-Event-Id)' }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    lastError: Nullable(Type.String(), "Why the latest attempt failed ('HTTP 500', 'timeout', ...); null when it did not"),
    state: StringEnum(DELIVERY_STATES, 'pending (will be tried again), delivered, or given up'),
    nextAttemptAt: Nullable(Type.Integer(), 'When the next attempt is due (ms); null once delivered or given up'),
    deliveredAt: Nullable(Type.Integer(), 'When the endpoint accepted it (ms); null until then'),
    gaveUpAt: Nullable(Type.Integer(), 'When the attempts stopped (ms); null unless given up'),
    createdAt: Type.Integer({ description: 'When the delivery was scheduled (ms)' }),
  },
  { description: 'One webhook delivery of an event to a bot' },
);

const DeliveriesAnswer = Type.Object(
  { deliveries: Type.Array(DeliveryRecord, { description: 'Newest first' }) },
  {
    description: "The bot's newest deliveries",
    examples: [
      {
        deliveries: [
          {
            eventId: '18342',
            attempts: 3,
            lastError: 'HTTP 500',
            state: 'pending',
            nextAttemptAt: 1741944413589,
            deliveredAt: null,
            gaveUpAt: null,
            createdAt: 1741944353589,
          },
          {
            eventId: '18297',
            attempts: 1,
            lastError: null,
            state: 'delivered',
            nextAttemptAt: null,
            deliveredAt: 1741943002114,
            gaveUpAt: null,
            createdAt: 1741943001980,
          },
        ],
      },
    ],
  },
);

/** A delivery as operators read it: which event, how it went, and what comes next. */
function presentDelivery(row: DeliveryRow) {
  return {
    eventId: String(row.event_id),
    attempts: row.attempts,
    lastError: row.last_error,
    state: row.delivered_at !== null ? ('delivered' as const) : row.gave_up_at !== null ? ('given up' as const) : ('pending' as const),
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
      config: networkAdmins('bot webhooks'),
      schema: {
        tags: ['bots'],
        summary: "A bot's newest webhook deliveries: state (pending, delivered, given up), attempts, last error",
        description: "Lists the bot's newest webhook deliveries, so a failing or refused endpoint is seen. An unknown bot is a 404.",
        params: Type.Object({ userId: Id() }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'How many; default 20' })) }),
        response: answers(DeliveriesAnswer),
      },
    },
    async (request) => {
      const rows = await deps.webhooks.newestDeliveries(request.params.userId, request.query.limit ?? 20);
      if (rows === null) throw notFound('Bot');
      return { deliveries: rows.map(presentDelivery) };
    },
  );
}
