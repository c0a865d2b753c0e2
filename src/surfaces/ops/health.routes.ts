import { Type } from '@sinclair/typebox';
import type { AdjustableClock } from '../../clock.js';
import { AppError } from '../../http/errors.js';
import type { TypedApp } from '../../http/typed-app.js';
import { pingDatabase, type Executor } from '../../storage/database.js';

/** Liveness and readiness for load balancers and orchestrators; no token needed. */
export function registerHealthRoutes(app: TypedApp, deps: { db: Executor }): void {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { tags: ['operations'], summary: 'Readiness: the database answers' } }, async (request, reply) => {
    try {
      await pingDatabase(deps.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return reply.code(503).send({ status: 'error', code: 500000, message: 'Database is not reachable.', data: { detail: [] } });
    }
  });
}

/** Exists only with PARLEY_TEST_CLOCK=1: moves the server's clock for time-dependent rules. */
export function registerTestClockRoute(app: TypedApp, deps: { clock: AdjustableClock }): void {
  app.put(
    '/test-clock',
    {
      schema: {
        tags: ['operations'],
        summary: 'Set the test clock offset (PARLEY_TEST_CLOCK=1 only)',
        body: Type.Object({ offsetMs: Type.Integer({ minimum: 0, maximum: 10 * 365 * 24 * 3600 * 1000 }) }),
      },
    },
    async (request) => {
      if (!Number.isSafeInteger(request.body.offsetMs)) throw new AppError('parameters', 'offsetMs is out of range.');
      deps.clock.setOffset(request.body.offsetMs);
      return { now: deps.clock.now() };
    },
  );
}
