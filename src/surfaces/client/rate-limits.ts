import type { FastifyRequest } from 'fastify';
import type { ClientRateLimits } from '../../config.js';
import { principalOf } from '../../http/auth.js';
import { enforceRateLimit, type RateLimiter } from '../../shared/rate-limit.js';

/**
 * The client API's route classes, each with its own budget per user: `send` (messages, uploads,
 * posts, comments, communities and every other write), `react` (reactions to messages and posts,
 * added or removed), `flag` (flags on messages and users), `read` (every GET, and moving the read
 * marker).
 */
export type ClientRateClass = 'send' | 'react' | 'flag' | 'read';

/** The class of a route, from its method and URL pattern (`/client/v1/messages/:messageId/flag`). */
export function rateClassOf(method: string, url: string | undefined): ClientRateClass {
  if (method === 'GET' || method === 'HEAD' || url === undefined || url.endsWith('/read')) return 'read';
  if (url.includes('/reactions')) return 'react';
  if (url.endsWith('/flag')) return 'flag';
  return 'send';
}

/**
 * Counts the request against the caller's budget for its route class and refuses it past the budget
 * (429 / 400311 with Retry-After). Every request counts, refused ones included, so a client looping
 * on a bad request is slowed down too. A class whose limit is 0 is not counted.
 */
export function clientRateGate(limiter: RateLimiter, limits: ClientRateLimits) {
  return async (request: FastifyRequest): Promise<void> => {
    const rateClass = rateClassOf(request.method, request.routeOptions.url);
    const limit = limits[rateClass];
    if (limit === 0) return;
    await enforceRateLimit(limiter, `client-${rateClass}:${principalOf(request).userId}`, limit, limits.windowMs);
  };
}
