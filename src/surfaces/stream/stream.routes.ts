import { Type } from '@sinclair/typebox';
import { bearerTokenOf, type EndUserAuthenticator } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { RealtimeGateway } from '../../modules/realtime/realtime.gateway.js';

/**
 * GET /client/v1/stream upgrades to a WebSocket. The token comes in `?token=` (browsers cannot set
 * headers on a WebSocket) or a Bearer header; a bad one is refused with the usual HTTP error before
 * the upgrade. `?since=<id>` replays what was missed after that frame id.
 */
export function registerRealtimeRoutes(
  app: TypedApp,
  deps: {
    gateway: RealtimeGateway;
    authenticate: EndUserAuthenticator;
    /** The last event id this instance has routed: where a stream opened without `since` starts. */
    startingPoint: () => number;
  },
): void {
  const startOf = new WeakMap<object, number>();
  app.route({
    method: 'GET',
    url: '/client/v1/stream',
    schema: {
      tags: ['real time'],
      summary: 'Real-time event stream (WebSocket)',
      querystring: Type.Object({
        token: Type.Optional(Type.String({ maxLength: 512 })),
        // Outbox ids are 64-bit; past 2^53 a JavaScript number is no longer an exact id.
        since: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
      }),
    },
    preValidation: async (request) => {
      // Read before schema validation (the upgrade needs the principal), so checked here: a
      // repeated or bracketed parameter is an array or object, which reached the token lookup (500).
      const query = request.query as { token?: unknown; since?: unknown };
      for (const name of ['token', 'since'] as const) {
        if (query[name] !== undefined && typeof query[name] !== 'string') {
          throw new AppError('parameters', `querystring.${name} must be given once, as a plain value.`, { detail: [{ field: `querystring.${name}`, message: 'must be a single value' }] });
        }
      }
      if (typeof query.since === 'string' && !/^\d{1,16}$/.test(query.since)) {
        throw new AppError('parameters', 'querystring.since must be an event id (digits).', { detail: [{ field: 'querystring.since', message: 'must be digits' }] });
      }
      request.principal = await deps.authenticate((query.token as string | undefined) ?? bearerTokenOf(request));
      // A stream without `since` starts now, and "now" is fixed before the upgrade completes: the
      // client may write the moment its socket opens, and the server is still loading the user's
      // channels then. Replaying from this point (from the database) loses nothing in between.
      if (query.since === undefined) startOf.set(request, deps.startingPoint());
    },
    // A plain GET (no Upgrade) is told so in the envelope; it was an empty 404 before session 9.
    handler: async () => {
      throw new AppError('badRequest', 'This is a WebSocket endpoint: connect with an Upgrade request (ws:// or wss://).');
    },
    wsHandler: (socket, request) => {
      const principal = request.principal;
      if (principal === null) {
        socket.close(1008, 'unauthorized');
        return;
      }
      // Frames from the client carry nothing the server acts on; the connection is one-way.
      socket.on('message', () => undefined);
      const since = (request.query as { since?: number }).since ?? startOf.get(request) ?? deps.startingPoint();
      deps.gateway.attach(principal, socket, since).catch((error: unknown) => {
        request.log.warn({ err: error }, 'stream attach failed');
        socket.close(1011, 'internal error');
      });
    },
  });
}
