import { Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AppError, envelopeOf } from '../../shared/errors.js';
import { pingDatabase, type Executor } from '../../storage/database.js';
import type { DependencyState, RedisHealth } from '../../storage/redis-target.js';

const tag = { tags: ['operations'] };

const Ok = Type.Object({ status: Type.Literal('ok') }, { description: 'Serving', examples: [{ status: 'ok' }] });
const UNEXPECTED = { ...ErrorEnvelope, description: 'Unexpected error' };

const State = Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]);
const Checks = Type.Object(
  {
    database: State,
    redis: Type.Optional({ ...State, description: 'Present when REDIS_URL is set' }),
  },
  { description: 'Each dependency and its state' },
);
const Ready = Type.Object(
  { status: Type.Literal('ok'), checks: Checks },
  { description: 'Every dependency answers', examples: [{ status: 'ok', checks: { database: 'ok', redis: 'ok' } }] },
);
const NotReady = Type.Object(
  // Optional for the schema only, so the answer stays an error envelope to every reader; /readyz always sends it.
  { ...ErrorEnvelope.properties, checks: Type.Optional(Checks) },
  {
    description: 'A dependency does not answer: the error envelope, with each dependency and its state',
    examples: [
      {
        status: 'error',
        code: 500000,
        message: 'Not ready: Redis is not reachable.',
        data: { detail: [], fields: [] },
        checks: { database: 'ok', redis: 'unavailable' },
      },
    ],
  },
);

/** A database that takes longer than this to answer a ping counts as unavailable. */
const DATABASE_PING_TIMEOUT_MS = 5_000;

async function databaseState(db: Executor): Promise<{ state: DependencyState; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_PING_TIMEOUT_MS / 1000} s`)), DATABASE_PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([pingDatabase(db), late]);
    return { state: 'ok' };
  } catch (error) {
    return { state: 'unavailable', error };
  } finally {
    clearTimeout(timer);
  }
}

/** Liveness and readiness for load balancers and orchestrators; no token needed. */
export function registerHealthRoutes(app: TypedApp, deps: { db: Executor; redis: RedisHealth | null }): void {
  const healthSchema = {
    ...tag,
    summary: 'Liveness',
    description: 'Answers 200 as soon as the server serves requests; it checks nothing else. No token.',
    response: { 200: Ok, 500: UNEXPECTED },
  };
  app.get('/healthz', { schema: healthSchema }, async () => ({ status: 'ok' as const }));

  const readySchema = {
    ...tag,
    summary: 'Readiness: the database and Redis answer',
    description:
      'Answers 200 when the database answers a query and, with REDIS_URL set, Redis answers; 503 otherwise, so a load balancer sends no traffic to this instance. `checks` names each dependency and its state (`ok` or `unavailable`); Redis is watched continuously (a lost connection at once, a silent one within about 3 s). No token.',
    response: { 200: Ready, 503: NotReady, 500: UNEXPECTED },
  };
  app.get('/readyz', { schema: readySchema }, async (request, reply) => {
    const database = await databaseState(deps.db);
    const checks: { database: DependencyState; redis?: DependencyState } = { database: database.state };
    if (deps.redis) checks.redis = deps.redis.state;
    if (database.state === 'ok' && checks.redis !== 'unavailable') return { status: 'ok' as const, checks };
    if (database.error !== undefined) request.log.warn({ err: database.error }, 'readiness check failed');
    const missing = [database.state === 'unavailable' ? 'the database' : null, checks.redis === 'unavailable' ? 'Redis' : null].filter(Boolean);
    const error = new AppError('unexpected', `Not ready: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not reachable.`);
    reply.errorCode = envelopeOf(error).code;
    return reply.code(503).send({ ...envelopeOf(error), checks });
  });
}
