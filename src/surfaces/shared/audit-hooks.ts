import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import { toAppError } from '../../http/error-handler.js';
import type { TypedApp } from '../../http/typed-app.js';
import { targetsOf } from '../../modules/audit/audit.targets.js';
import type { AuditService } from '../../modules/audit/audit.service.js';
import type { AuditActor, AuditNote } from '../../modules/audit/audit.types.js';
import { ERRORS } from '../../shared/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The audit operation a route records, declared by the route (`channel.close`, one stable name per
     * action whichever surface it is made from); false: none (the admin API's reads and message sends,
     * content an app posts by the thousand). installAudit fills it in where the route does not say.
     */
    audit?: string | false;
  }
}

/** The notes of the audited requests in flight; a route hands its request's note to the command it runs. */
const notes = new WeakMap<FastifyRequest, AuditNote>();

/**
 * The note of an audited request, for the command the route runs: the command writes the entry in its
 * own transaction. Null where the route records nothing (no operation, or no authenticated caller).
 */
export function auditNoteOf(request: FastifyRequest): AuditNote | null {
  return notes.get(request) ?? null;
}

function actorOf(principal: NonNullable<FastifyRequest['principal']>): AuditActor {
  return principal.kind === 'admin' ? { type: 'admin', tokenId: principal.tokenId, userId: principal.userId } : { type: 'user', userId: principal.userId };
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A route that names no operation: on the admin API a write is recorded under its pattern, else nothing. */
function operationOf(method: string, url: string, recordEveryWrite: boolean): string | false {
  return recordEveryWrite && WRITES.has(method) ? `${method} ${url}` : false;
}

/**
 * Records the surface's administrative actions in the audit trail: who (the admin token or the
 * moderator), the operation, the ids it named, the status and error code, and the request id. A
 * command (a ban, a delete, a review, an erasure) writes its entry in its own transaction from the
 * request's note (auditNoteOf); every other action, and every refusal, is recorded as it is answered. Only authenticated requests are recorded: an unknown caller names no actor, and
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
  // Before the handler, so a command the route runs can write the entry in its own transaction.
  // Callback-style: the surface's unaudited routes (message sends) pass through without a promise.
  scope.addHook('preHandler', (request, _reply, done) => {
    const { config } = request.routeOptions;
    const principal = request.principal;
    if (!config.audit || principal === null) {
      done();
      return;
    }
    const route = request.routeOptions.url ?? '';
    audit.note({ actor: actorOf(principal), operation: config.audit, method: request.method, route, requestId: request.id }).then(
      (note) => {
        notes.set(request, note);
        done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
  // What a command wrote in its transaction is not written twice; everything else (refusals included) is written here.
  scope.addHook('onResponse', (request, reply, done) => {
    const { config } = request.routeOptions;
    const principal = request.principal;
    if (config.audit && principal !== null && notes.get(request)?.written !== true) {
      audit.record({
        at: clock.now(),
        actor: actorOf(principal),
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
