import type { Registry } from 'prom-client';

/** One exported sample, in the shape prom-client's registry formats (`Registry.getMetricsAsString`). */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

interface RouteTally {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative; summed when exported). The last slot is +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * The per-request metrics (count by method, route and status; latency by method and route), tallied
 * in plain numbers and exported through prom-client's registry as a counter and a histogram. prom-client's
 * own Counter and Histogram convert, validate and hash their label set on every call, even through a
 * child from `labels()`: about a microsecond per request, on every request of the server.
 */
export function createRequestMetrics(registry: Registry, names: { requests: string; latency: string }, buckets: readonly number[]) {
  const tallies = new Map<string, Map<string, RouteTally>>();
  const bounds = Float64Array.from(buckets);

  function tallyOf(method: string, route: string): RouteTally {
    let byMethod = tallies.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      tallies.set(route, byMethod);
    }
    let tally = byMethod.get(method);
    if (tally === undefined) {
      tally = { method, route, byStatus: new Map(), buckets: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
      byMethod.set(method, tally);
    }
    return tally;
  }

  function* everyTally(): Generator<RouteTally> {
    for (const byMethod of tallies.values()) yield* byMethod.values();
  }

  /**
   * prom-client's types name only its own metric classes, while its registry formats any metric with a
   * name, a help, a type and get() (registry.js getMetricsAsString): hence the cast.
   */
  function register(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]): void {
    const metric = { name, help, type, get: () => ({ name, help, type, values: samples(), aggregator: 'sum' }) };
    registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  register(names.requests, 'HTTP requests by method, route pattern and status', 'counter', () => {
    const values: Sample[] = [];
    for (const tally of everyTally()) {
      for (const [status, count] of tally.byStatus) values.push({ labels: { method: tally.method, route: tally.route, status }, value: count });
    }
    return values;
  });

  register(names.latency, 'HTTP request latency by method and route pattern', 'histogram', () => {
    const values: Sample[] = [];
    for (const tally of everyTally()) {
      const labels = { method: tally.method, route: tally.route };
      let cumulative = 0;
      bounds.forEach((bound, index) => {
        cumulative += tally.buckets[index] ?? 0;
        values.push({ metricName: `${names.latency}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${names.latency}_bucket`, labels: { ...labels, le: '+Inf' }, value: tally.count });
      values.push({ metricName: `${names.latency}_sum`, labels, value: tally.sum });
      values.push({ metricName: `${names.latency}_count`, labels, value: tally.count });
    }
    return values;
  });

  return {
    /** Counts one answered request; `seconds` is its latency. No allocation once the route is known. */
    record(method: string, route: string, status: number, seconds: number): void {
      const tally = tallyOf(method, route);
      tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
      let bucket = 0;
      while (bucket < bounds.length && seconds > (bounds[bucket] as number)) bucket += 1;
      tally.buckets[bucket] = (tally.buckets[bucket] ?? 0) + 1;
      tally.sum += seconds;
      tally.count += 1;
    },
  };
}
