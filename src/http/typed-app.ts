import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/** A Fastify instance whose route schemas type the handlers' input (TypeBox). */
export type TypedApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route never appends outbox events, so a success need not wake the relay (app.ts). */
    emitsEvents?: boolean;
  }
}

/** Route config for routes that never append outbox events (sign-in, tokens): no relay wake-up after them. */
export const NO_EVENTS = { emitsEvents: false } as const;
