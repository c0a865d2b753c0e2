import { Type } from '@sinclair/typebox';
import { bearerTokenOf, type EndUserAuthenticator } from '../../http/auth.js';
import { ErrorEnvelope } from '../../http/responses.js';
import { AppError } from '../../shared/errors.js';
import type { TypedApp } from '../../http/typed-app.js';
import { CLOSE_BANNED, CLOSE_RESYNC, CLOSE_SLOW_CONSUMER, CLOSE_TOKEN_ENDED, type RealtimeGateway } from '../../modules/realtime/realtime.gateway.js';

/** The socket's own close codes, beside the gateway's (4000-4999). */
const CLOSE_UNAUTHORIZED = 1008;
const CLOSE_INTERNAL = 1011;

const STREAM_DESCRIPTION = `Upgrades to a WebSocket (ws:// or wss://) that sends the caller's events as JSON text frames \`{"id", "type", "data"}\`: \`id\` is the event's position (a growing integer), \`data\` its payload (below).

Parameters: \`token\`, the user access token (browsers cannot set headers on a WebSocket; an \`Authorization: Bearer\` header works too). \`since\`, the \`id\` of the last frame the client handled: the stream first replays, in order, every event after it that the caller may see, then goes live; without it the stream starts now. A bad token is refused before the upgrade with the usual error envelope (401, or 403 for a user banned from the system); a plain GET without the upgrade is a 400.

Frames: \`message.created\` and \`message.deleted\` (a message record), \`reaction.added\` and \`reaction.removed\` (the reaction and the message's counts), \`channel.updated\` (\`{channel}\`), \`member.added\` and \`member.removed\` (\`{channelId, userIds, channel}\`), for the channels the caller is a member of; \`tray.updated\` (\`{verb, targetId, targetGroup}\`), for the caller's own tray. The stream is one-way: frames from the client are ignored. The server pings every 30 seconds and drops a socket that did not answer the previous ping.

Close codes and what to do: ${CLOSE_TOKEN_ENDED} the token expired or was revoked: get a new token, then reconnect with \`since\`. ${CLOSE_BANNED} the user is banned from the system: do not reconnect. ${CLOSE_SLOW_CONSUMER} the client did not read its frames in time: reconnect with \`since\`. ${CLOSE_RESYNC} \`since\` cannot be resumed (too many missed events, or past the newest): reload the state through the API, then reconnect without \`since\`. 1001 the server is shutting down, and 1006 (no close frame: a dropped connection, a socket that wrote too slowly) or ${CLOSE_INTERNAL} (a server error): reconnect with \`since\`, backing off. ${CLOSE_UNAUTHORIZED} the upgrade carried no user: reconnect with a token.`;

const MISSING_TOKEN = 'Missing access token: connect to /client/v1/stream?token=<user access token> (or send Authorization: Bearer <token>).';
/** How a refused token kind is told where the stream takes a token. */
const STREAM_TOKEN_USE = { surface: 'the stream', sendAs: '?token=<token> or Authorization: Bearer <token>' };

const envelope = (description: string) => ({ ...ErrorEnvelope, description });

/** The upgrade's answers: 101 on success, the envelope for a refusal (no 404: the route names nothing). */
const StreamAnswers = {
  101: Type.Null({ description: 'Switching Protocols: the WebSocket stream' }),
  400: envelope('A plain GET without the WebSocket upgrade, or a malformed parameter'),
  401: envelope('The token is missing, invalid or expired'),
  403: envelope('The token may not open a stream (not a user token, or a user banned from the system)'),
  422: envelope('`token` or `since` given twice, or `since` not an event id'),
  500: envelope('Unexpected error'),
};

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
      description: STREAM_DESCRIPTION,
      querystring: Type.Object({
        token: Type.Optional(Type.String({ maxLength: 512, description: 'The user access token' })),
        // Outbox ids are 64-bit; past 2^53 a JavaScript number is no longer an exact id.
        since: Type.Optional(
          Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'The id of the last frame handled: replay what came after it' }),
        ),
      }),
      response: StreamAnswers,
    },
    preValidation: async (request) => {
      // Read before schema validation (the upgrade needs the principal), so checked here: a
      // repeated or bracketed parameter is an array or object, which reached the token lookup (500).
      const query = request.query as { token?: unknown; since?: unknown };
      for (const name of ['token', 'since'] as const) {
        if (query[name] !== undefined && typeof query[name] !== 'string') {
          throw new AppError('parameters', `querystring.${name} must be given once, as a plain value.`, {
            detail: [{ field: `querystring.${name}`, message: 'must be a single value' }],
          });
        }
      }
      if (typeof query.since === 'string' && !/^\d{1,16}$/.test(query.since)) {
        throw new AppError('parameters', 'querystring.since must be an event id (digits).', {
          detail: [{ field: 'querystring.since', message: 'must be digits' }],
        });
      }
      // Browsers cannot set headers on a WebSocket: the query is where most clients put the token.
      const token = typeof query.token === 'string' && query.token !== '' ? query.token : bearerTokenOf(request);
      if (token === null) throw new AppError('unauthorized', MISSING_TOKEN);
      request.principal = await deps.authenticate(token, STREAM_TOKEN_USE);
      // A stream without `since` starts now, and "now" is fixed before the upgrade completes: the
      // client may write the moment its socket opens, and the server is still loading the user's
      // channels then. Replaying from this point (from the database) loses nothing in between.
      if (query.since === undefined) startOf.set(request, deps.startingPoint());
    },
    // A plain GET (no Upgrade) is told so in the envelope, like any other refusal.
    handler: async () => {
      throw new AppError('badRequest', 'This is a WebSocket endpoint: connect with an Upgrade request (ws:// or wss://).');
    },
    wsHandler: (socket, request) => {
      const principal = request.principal;
      if (principal === null) {
        socket.close(CLOSE_UNAUTHORIZED, 'unauthorized');
        return;
      }
      // Frames from the client carry nothing the server acts on; the connection is one-way.
      socket.on('message', () => undefined);
      const since = (request.query as { since?: number }).since ?? startOf.get(request) ?? deps.startingPoint();
      deps.gateway.attach(principal, socket, since).catch((error: unknown) => {
        request.log.warn({ err: error }, 'stream attach failed');
        socket.close(CLOSE_INTERNAL, 'internal error');
      });
    },
  });
}
