import type { FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import pretty from 'pino-pretty';

declare module 'fastify' {
  interface FastifyRequest {
    /** The matched route's pattern (`/api/v2/channel/:channelId/users`), null when no route matched. */
    routePattern: string | null;
  }
  interface FastifyReply {
    /** The error code of the envelope this reply sends (400400, 500000...); 0 for a success. */
    errorCode: number;
  }
}

/** Probes answer every few seconds: their lines would drown the rest at info. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The path of a URL without its query string: the query can carry a token (the stream's `?token=`,
 * an avatar's `access_token`), and no log line may.
 */
export function pathOf(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? url : url.slice(0, mark);
}

/**
 * Fastify's request lines, in Parley's terms: one "request completed" line per request at info (debug
 * for health probes and metrics) with the method, the route pattern (never the raw URL, whose ids are
 * personal and whose query may hold a token), the status and, on an error, the envelope's code; the
 * "incoming request" line (path only) at debug.
 */
export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routePattern;
    const fields: Record<string, unknown> = {
      method: request.method,
      route,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (reply.errorCode !== 0) fields.errorCode = reply.errorCode;
    if (error) {
      fields.err = error;
      reply.log.error(fields, 'request errored');
    } else if (route !== null && PROBE_ROUTES.has(route)) {
      reply.log.debug(fields, 'request completed');
    } else {
      reply.log.info(fields, 'request completed');
    }
  }
}

/** Serializes a request on the "incoming request" line: never its query string. */
export function serializeRequest(request: FastifyRequest): { method: string; url: string; id: string } {
  return { method: request.method, url: pathOf(request.url), id: request.id };
}

/**
 * Where log lines go: the given stream (tests), readable colored lines on a terminal, JSON lines
 * otherwise (a file, a pipe, a container's log collector).
 */
export function logDestination(given: { write(line: string): void } | undefined): { write(line: string): void } | undefined {
  if (given) return given;
  if (!process.stdout.isTTY) return undefined;
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true });
}
