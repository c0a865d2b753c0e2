import { queryOptions } from '@tanstack/react-query';
import { serverUrl } from '../../api/base.js';
import { api, call } from '../../api/client.js';
import { apiErrorOf } from '../../api/errors.js';

/** The Overview screen's reads, each refreshed every 10 s while it is open. */

const REFRESH_MS = 10_000;

export const overviewKeys = {
  readiness: ['ops', 'readyz'] as const,
  status: ['ops', 'status'] as const,
  stats: ['ops', 'stats'] as const,
};

/** GET /readyz: 200 with checks, or 503 with the error envelope and checks. No token. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
  message: string | null;
}

async function readiness(): Promise<Readiness> {
  const response = await fetch(serverUrl('/readyz'), { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => null)) as { checks?: Record<string, string>; message?: string } | null;
  if (!response.ok && response.status !== 503) throw apiErrorOf(response.status, body);
  return { ready: response.ok, checks: body?.checks ?? {}, message: response.ok ? null : (body?.message ?? null) };
}

export const readinessQuery = () => queryOptions({ queryKey: overviewKeys.readiness, queryFn: readiness, refetchInterval: REFRESH_MS });

/**
 * The answering instance: version, start time, outbox lag and open sockets (GET /api/v2/status, what
 * /metrics exposes to Prometheus, behind the console's own credentials).
 */
export const instanceStatusQuery = () =>
  queryOptions({ queryKey: overviewKeys.status, queryFn: () => call(api.GET('/api/v2/status')), refetchInterval: REFRESH_MS });

/** The network's totals of users, channels and messages (GET /api/v2/stats). */
export const networkStatsQuery = () =>
  queryOptions({ queryKey: overviewKeys.stats, queryFn: () => call(api.GET('/api/v2/stats')), refetchInterval: REFRESH_MS });
