import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AppError, envelopeOf } from '../../shared/errors.js';
import { pingDatabase, type Executor } from '../../storage/database.js';

const tag = { tags: ['operations'] };

const Ok = Type.Object({ status: Type.Literal('ok') }, { description: 'Serving', examples: [{ status: 'ok' }] });
const UNEXPECTED = { ...ErrorEnvelope, description: 'Unexpected error' };

/** Liveness and readiness for load balancers and orchestrators; no token needed. */
export function registerHealthRoutes(app: TypedApp, deps: { db: Executor }): void {
  const healthSchema = {
    ...tag,
    summary: 'Liveness',
    description: 'Answers 200 as soon as the server serves requests; it checks nothing else. No token.',
    response: { 200: Ok, 500: UNEXPECTED },
  };
  app.get('/healthz', { schema: healthSchema }, async () => ({ status: 'ok' as const }));

  const readySchema = {
    ...tag,
    summary: 'Readiness: the database answers',
    description: 'Answers 200 when the database answers a query, 503 when it does not, so a load balancer sends no traffic to this instance. No token.',
    response: { 200: Ok, 503: { ...ErrorEnvelope, description: 'The database does not answer' }, 500: UNEXPECTED },
  };
  app.get('/readyz', { schema: readySchema }, async (request, reply) => {
    try {
      await pingDatabase(deps.db);
      return { status: 'ok' as const };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send(envelopeOf(new AppError('unexpected', 'Database is not reachable.')));
    }
  });
}
