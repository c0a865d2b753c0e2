import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERRORS, envelopeOf, type ErrorDetail } from '../shared/errors.js';
import { pathOf } from './request-log.js';
import { describeIssue, type SchemaIssue } from './validation-messages.js';

/** JSON Pointer (`/options/limit`, `/userIds/3`) to a field path (`options.limit`, `userIds[3]`). */
function pathParts(pointer: string): string[] {
  const parts: string[] = [];
  for (const raw of pointer.split('/')) {
    if (raw === '') continue;
    const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(part) && parts.length > 0) parts[parts.length - 1] += `[${part}]`;
    else parts.push(part);
  }
  return parts;
}

/** `/options/limit` in the body becomes `body.options.limit`; a missing property is named itself. */
function fieldOf(context: string, issue: SchemaIssue): string {
  const parts = pathParts(issue.instancePath);
  const missing = issue.params.missingProperty;
  if (issue.keyword === 'required' && typeof missing === 'string') parts.push(missing);
  return [context, ...parts].join('.');
}

/**
 * The field as a person reads it in the message: `userId`, `options.limit`, `limit` of the query. The
 * part (`body.`, `querystring.`, `params.`) stays in `data.fields` and `data.detail`, for programs.
 */
function readableField(field: string, context: string): string {
  return field.startsWith(`${context}.`) ? field.slice(context.length + 1) : field;
}

function validationError(context: string, issues: SchemaIssue[]): AppError {
  // One problem per issue; envelopeOf sends them as `data.fields` and as sentences in `data.detail`.
  const fields: ErrorDetail[] = issues.map((issue) => ({ field: fieldOf(context, issue), message: describeIssue(issue) }));
  const first = fields[0];
  const summary = first ? `${readableField(first.field, context)} ${first.message}.` : 'Invalid parameters.';
  // An unknown enum value is a bad request (400000); every other schema miss is a parameters error (422).
  const kind = issues.every((issue) => issue.keyword === 'enum') ? 'badRequest' : 'parameters';
  return new AppError(kind, summary, { detail: fields });
}

/** Turns anything thrown by Fastify, a plugin or our code into the catalogue's terms. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: SchemaIssue[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    return validationError(fastifyError.validationContext ?? 'request', fastifyError.validation);
  }
  const status = typeof fastifyError.statusCode === 'number' ? fastifyError.statusCode : 500;
  if (status === 413) return new AppError('payloadTooLarge', 'Payload too large.');
  if (status === 415) return new AppError('badRequest', 'Unsupported content type.');
  if (status >= 400 && status < 500) {
    // Fastify's own 4xx messages describe the request (malformed JSON, bad length), never internals.
    return new AppError('badRequest', typeof fastifyError.message === 'string' ? fastifyError.message : 'Bad request.');
  }
  return new AppError('unexpected');
}

/** Sends the envelope, under the error's own status unless `status` says otherwise (405). */
export function sendError(reply: FastifyReply, error: AppError, status: number = error.httpStatus): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.errorCode = ERRORS[error.kind].code;
  return reply.code(status).type('application/json; charset=utf-8').send(envelopeOf(error));
}

/** Every method a route can be registered under; HEAD comes with each GET. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods some route serves at this path, in METHODS order. */
function methodsAt(app: FastifyInstance, path: string): string[] {
  return METHODS.filter((method) => {
    try {
      return app.findRoute({ method, url: path }) !== null;
    } catch {
      return false;
    }
  });
}

export function installErrorHandling(app: FastifyInstance): void {
  // The error code of what a reply sends, for the "request completed" log line (http/request-log.ts).
  app.decorateReply('errorCode', 0);
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.kind === 'unexpected') {
      request.log.error({ err: error }, 'unexpected error');
    }
    return sendError(reply, appError);
  });
  // A path some route serves, asked with another method, is 405 with `Allow`; the code stays 400400
  // (what an unknown route answers, docs/contract.md, Errors), so clients that read only the code
  // see what they always saw. A path no route serves is 404.
  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    const allowed = methodsAt(app, path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(reply, new AppError('notFound', `${request.method} is not served on ${path}; it answers ${allowed.join(', ')}.`), 405);
    }
    return sendError(reply, new AppError('notFound', `Route ${request.method} ${path} not found.`));
  });
}
