import type { WebhookDeliveriesTable } from '../../storage/schema.js';

/** A webhook delivery as stored: one event for one bot, with its attempts. */
export type DeliveryRow = WebhookDeliveriesTable;
