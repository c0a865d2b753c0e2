import type { DomainEvent, OutboxEvent } from '../../src/events/catalogue.js';

/** An event as tests of the outbox machinery write it: any type, any payload. */
export interface LooseEvent {
  type: string;
  channelId?: string | null;
  userId?: string | null;
  recipientId?: string | null;
  data: unknown;
}

/**
 * Events outside the catalogue, or with partial payloads, for tests of the outbox machinery itself
 * (ids, order, locks, scheduling): appendEvents takes catalogue events only, and what these tests
 * check does not depend on the payload's shape.
 */
export function uncatalogued(events: readonly LooseEvent[]): DomainEvent[] {
  return events as unknown as DomainEvent[];
}

/** The same on the reading side: an event as the relay would hand it over, with any type and payload. */
export function looseOutboxEvent(event: LooseEvent & { id: number; createdAt: number }): OutboxEvent {
  return event as unknown as OutboxEvent;
}
