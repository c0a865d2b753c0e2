import websocket from '@fastify/websocket';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { registerRealtimeRoutes } from './stream.routes.js';

/**
 * The real-time stream, GET /client/v1/stream. In a scope of its own: the websocket plugin adds request
 * and response hooks, which then run for the stream route only, not for every API request.
 */
export function streamSurface(container: Container) {
  return async function stream(scope: TypedApp): Promise<void> {
    await scope.register(websocket, { options: { maxPayload: 64 * 1024 } });
    const { relay } = container.events;
    registerRealtimeRoutes(scope, { gateway: container.gateway, authenticate: container.authenticateUser, startingPoint: () => relay.position });
  };
}
