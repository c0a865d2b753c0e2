import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { ErrorEnvelope } from '../../http/responses.js';
import { createRequestMetrics } from './request-metrics.js';

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
  // prom-client names its series process_*, nodejs_*: with this prefix, parley_process_cpu_seconds_total...
  collectDefaultMetrics({ register: registry, prefix: 'parley_' });
  const requests = createRequestMetrics(
    registry,
    { requests: 'parley_http_requests_total', latency: 'parley_http_request_duration_seconds' },
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
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
  // and a microtask hop.
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL: ids in paths would explode the label set.
    requests.record(request.method, request.routePattern ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const schema = {
    tags: ['operations'],
    summary: 'Prometheus metrics',
    description:
      'The Prometheus text exposition format (version 0.0.4): requests by route and status, latency, outbox lag, open sockets, database pool and process figures. No token: keep it behind the network fence.',
    response: {
      200: {
        description: 'The metrics, as text',
        content: { 'text/plain': { schema: Type.String({ description: 'Prometheus text exposition format 0.0.4' }) } },
      },
      500: { ...ErrorEnvelope, description: 'Unexpected error' },
    },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
