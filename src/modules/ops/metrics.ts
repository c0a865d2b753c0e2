import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Numbers the metrics endpoint asks for at scrape time. */
export interface MetricSources {
  outboxLag(): Promise<number>;
  connectedSockets(): number;
  databasePool(): { total: number; idle: number; waiting: number } | null;
}

/**
 * Prometheus metrics: requests by route and status, their latency, outbox lag, sockets and the
 * database pool. A registry per app (no global default), so tests can build many apps.
 */
export function installMetrics(app: FastifyInstance, sources: MetricSources): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'parley_process_' });
  const requests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  new Gauge({
    name: 'parley_outbox_lag_events',
    help: 'Committed outbox events not yet handed to this instance',
    registers: [registry],
    async collect() {
      this.set(await sources.outboxLag());
    },
  });
  new Gauge({
    name: 'parley_websocket_connections',
    help: 'Open real-time sockets on this instance',
    registers: [registry],
    collect() {
      this.set(sources.connectedSockets());
    },
  });
  const pool = new Gauge({
    name: 'parley_database_pool_connections',
    help: 'Database pool connections by state (PostgreSQL)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = sources.databasePool();
      if (!stats) return;
      pool.set({ state: 'total' }, stats.total);
      pool.set({ state: 'idle' }, stats.idle);
      pool.set({ state: 'waiting' }, stats.waiting);
    },
  });

  // Callback-style rather than async: it runs on every request, and an async hook costs a promise
  // and a microtask hop. The labelled children are kept by key: prom-client otherwise builds and hashes
  // the label set on every call, twice per request.
  const counters = new Map<string, ReturnType<typeof requests.labels>>();
  const timers = new Map<string, ReturnType<typeof latency.labels>>();
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    const status = String(reply.statusCode);
    const routeKey = `${method} ${route}`;
    const countKey = `${routeKey} ${status}`;
    let counter = counters.get(countKey);
    if (counter === undefined) {
      counter = requests.labels(method, route, status);
      counters.set(countKey, counter);
    }
    let timer = timers.get(routeKey);
    if (timer === undefined) {
      timer = latency.labels(method, route);
      timers.set(routeKey, timer);
    }
    counter.inc();
    timer.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { tags: ['operations'], summary: 'Prometheus metrics' } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
