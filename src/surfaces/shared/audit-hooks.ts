import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { toAppError } from '../../http/error-handler.js';
import type { TypedApp } from '../../http/typed-app.js';
import { targetsOf } from '../../modules/audit/audit.targets.js';
import type { AuditService } from '../../modules/audit/audit.service.js';
import { ERRORS } from '../../shared/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The audit operation a route records (installAudit fills it in where the route does not say); false: none. */
    audit?: string | false;
  }
}

/**
 * Stable operation names, one per action, whichever surface it is made from: an admin token and a
 * moderator closing a channel are both `channel.close`. `false` marks the admin API's POSTs that only
 * read, and its message sends: a send is content an app posts (often thousands a minute), not an
 * administrative change; deleting a message is recorded. Admin routes missing here are recorded under
 * their pattern (`POST /api/v2/...`).
 */
const OPERATIONS: Record<string, string | false> = {
  'POST /api/v2/channels': false,
  'POST /api/v2/messages': false,
  'POST /api/v2/channel': 'channel.create',
  'POST /api/v2/channel/displayName': 'channel.rename',
  'POST /api/v2/channel/:channelId/displayName': 'channel.rename',
  'POST /api/v2/channel/:channelId/users': 'channel.addUsers',
  'DELETE /api/v2/channel/:channelId/users': 'channel.removeUsers',
  'POST /api/v2/channel/:channelId/users/ban': 'channel.banUsers',
  'POST /api/v2/channel/:channelId/users/unban': 'channel.unbanUsers',
  'PUT /api/v2/channel/:channelId/mute': 'channel.mute',
  'PUT /api/v2/channel/:channelId/users/mute': 'channel.muteUsers',
  'POST /api/v2/channel/:channelId/close': 'channel.close',
  'POST /api/v2/channels/:channelId/close': 'channel.close',
  'POST /api/v2/message': false,
  'DELETE /api/v2/message/:messageId': 'message.delete',
  'POST /api/v2/messages/images': false,
  'POST /api/v2/messages/files': false,
  'PUT /api/v2/users': 'user.upsert',
  'POST /api/v2/users/ban': 'user.ban',
  'POST /api/v2/users/unban': 'user.unban',
  'DELETE /api/v2/users/:userId/flags': 'user.clearFlags',
  'POST /api/v2/users/:userId/tokens': 'user.mintToken',
  'PUT /api/v2/users/:userId/avatar': 'user.setAvatar',
  'PUT /api/v2/roles': 'role.upsert',
  'POST /api/v2/blacklist/records': 'blacklist.create',
  'DELETE /api/v2/blacklist/records': 'blacklist.delete',
  'PUT /api/v2/blacklist/records/:ruleId': 'blacklist.update',
  'POST /api/v2/whitelist/records': 'whitelist.create',
  'DELETE /api/v2/whitelist/records': 'whitelist.delete',
  'PUT /api/v2/whitelist/records/:ruleId': 'whitelist.update',
  'POST /api/v2/reactions': 'reaction.add',
  'DELETE /api/v2/reactions': 'reaction.remove',
  'POST /api/v2/oauth/clients': 'oauthClient.create',
  'DELETE /api/v2/oauth/clients/:clientId': 'oauthClient.delete',
  'POST /api/v2/bots': 'bot.create',
  'PUT /api/v2/bots/:userId': 'bot.update',
  'PUT /api/v2/test-clock': 'testClock.set',
  // The client API's moderation: only these of its routes are recorded.
  'PUT /client/v1/channels/:channelId': 'channel.rename',
  'POST /client/v1/channels/:channelId/users': 'channel.addUsers',
  'DELETE /client/v1/channels/:channelId/users': 'channel.removeUsers',
  'POST /client/v1/channels/:channelId/users/ban': 'channel.banUsers',
  'POST /client/v1/channels/:channelId/users/unban': 'channel.unbanUsers',
  'PUT /client/v1/channels/:channelId/mute': 'channel.mute',
  'PUT /client/v1/channels/:channelId/users/mute': 'channel.muteUsers',
  'POST /client/v1/channels/:channelId/close': 'channel.close',
  'POST /client/v1/users/:userId/ban': 'user.ban',
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The operation a route records: its own declaration, the catalogue's name, or (admin API) its pattern. */
function operationOf(method: string, url: string, recordEveryWrite: boolean): string | false {
  const key = `${method} ${url}`;
  const named = OPERATIONS[key];
  if (named !== undefined) return named;
  return recordEveryWrite && WRITES.has(method) ? key : false;
}

/**
 * Records the surface's administrative actions in the audit trail as they are answered: who (the
 * admin token or the moderator), the operation, the ids it named, the status and error code, and the
 * request id. Only authenticated requests are recorded: an unknown caller names no actor, and
 * recording them would let anyone fill the trail. `recordEveryWrite`: every POST, PUT, PATCH and
 * DELETE of the surface (the admin API); otherwise only the catalogue's routes (the client API).
 * Call before the surface's routes are registered.
 */
export function installAudit(scope: TypedApp, deps: { audit: AuditService; clock: Clock }, recordEveryWrite: boolean): void {
  const { audit, clock } = deps;
  const errorCodes = new WeakMap<FastifyRequest, number>();
  scope.addHook('onRoute', (route) => {
    if (route.config?.audit !== undefined) return;
    const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
    route.config = { ...route.config, audit: operationOf(method, route.url ?? route.path, recordEveryWrite) };
  });
  // The code the error handler answers with, read from the same mapping it uses.
  scope.addHook('onError', (request, _reply, error, done) => {
    errorCodes.set(request, ERRORS[toAppError(error).kind].code);
    done();
  });
  scope.addHook('onResponse', (request, reply, done) => {
    const { config } = request.routeOptions;
    const principal = request.principal;
    if (config.audit && principal !== null) {
      audit.record({
        at: clock.now(),
        actor:
          principal.kind === 'admin' ? { type: 'admin', tokenId: principal.tokenId, userId: principal.userId } : { type: 'user', userId: principal.userId },
        operation: config.audit,
        method: request.method,
        route: request.routeOptions.url ?? '',
        targets: targetsOf(request.params, request.query, request.body),
        status: reply.statusCode,
        errorCode: reply.statusCode >= 400 ? (errorCodes.get(request) ?? null) : null,
        requestId: request.id,
      });
    }
    done();
  });
}
