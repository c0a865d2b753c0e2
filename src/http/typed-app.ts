import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/** A Fastify instance whose route schemas type the handlers' input (TypeBox). */
export type TypedApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * false: a success need not wake the outbox relay (app.ts), because the route appends no outbox
     * events, or because what appends them tells the relay itself (message creates).
     */
    pokesRelay?: boolean;
  }
}

/** Route config for routes that never append outbox events (sign-in, tokens): no relay wake-up after them. */
export const NO_EVENTS = { pokesRelay: false } as const;

/** Route config for routes whose events are handed to the relay by the writer (messages.service.ts). */
export const HANDS_EVENTS_ITSELF = { pokesRelay: false } as const;
