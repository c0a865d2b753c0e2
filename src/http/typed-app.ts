import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/** A Fastify instance whose route schemas type the handlers' input (TypeBox). */
export type TypedApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * @deprecated No effect: the transaction layer wakes the outbox relay after every commit that
 * appended events (storage/transactions.ts), whatever the route.
 */
export const NO_EVENTS = {} as const; // remove with their uses

/** @deprecated No effect, as NO_EVENTS. */
export const HANDS_EVENTS_ITSELF = {} as const; // remove with their uses
