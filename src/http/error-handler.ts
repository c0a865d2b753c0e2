import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelopeOf, type ErrorDetail } from '../shared/errors.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/options/limit` in the body becomes `body.options.limit`; a missing property is named itself. */
function fieldOf(context: string, issue: AjvIssue): string {
  const pathParts = issue.instancePath.split('/').filter((part) => part !== '');
  const missing = issue.params.missingProperty;
  if (issue.keyword === 'required' && typeof missing === 'string') pathParts.push(missing);
  return [context, ...pathParts].join('.');
}

function describe(issue: AjvIssue): string {
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
    return `must be one of ${issue.params.allowedValues.map(String).join(', ')}`;
  }
  return issue.message ?? 'is invalid';
}

function validationError(context: string, issues: AjvIssue[]): AppError {
  // One problem per field; envelopeOf sends them as `data.fields` and as sentences in `data.detail`.
  const fields: ErrorDetail[] = issues.map((issue) => ({ field: fieldOf(context, issue), message: describe(issue) }));
  const first = fields[0];
  const summary = first ? `${first.field} ${first.message}.` : 'Invalid parameters.';
  // An unknown enum value is a bad request (400000); every other schema miss is a parameters error (422).
  const kind = issues.every((issue) => issue.keyword === 'enum') ? 'badRequest' : 'parameters';
  return new AppError(kind, summary, { detail: fields });
}

/** Turns anything thrown by Fastify, a plugin or our code into the catalogue's terms. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: AjvIssue[]; validationContext?: string };
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

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.code(error.httpStatus).type('application/json; charset=utf-8').send(envelopeOf(error));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    if (appError.kind === 'unexpected') {
      request.log.error({ err: error }, 'unexpected error');
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    return sendError(reply, new AppError('notFound', `Route ${request.method} ${request.url.split('?')[0]} not found.`));
  });
}
