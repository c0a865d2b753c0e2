import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { registerHealthRoutes } from './health.routes.js';
import { installMetrics } from './metrics.routes.js';

/** Health, readiness and metrics at the root: no token (put /metrics behind the network's own fence). */
export function opsSurface(container: Container) {
  return async function ops(scope: TypedApp): Promise<void> {
    registerHealthRoutes(scope, { db: container.db, redis: container.redisHealth });
    installMetrics(scope, container.metricSources);
  };
}
