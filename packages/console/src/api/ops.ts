import { serverUrl } from './base.js';
import { api, call } from './client.js';
import { apiErrorOf } from './errors.js';
import type { InstanceStatus, NetworkStats } from './types.js';

/** GET /readyz: 200 with checks, or 503 with the error envelope and checks. No token. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, string>;
  message: string | null;
}

export async function readiness(): Promise<Readiness> {
  const response = await fetch(serverUrl('/readyz'), { headers: { accept: 'application/json' } });
  const body = (await response.json().catch(() => null)) as { checks?: Record<string, string>; message?: string } | null;
  if (!response.ok && response.status !== 503) throw apiErrorOf(response.status, body);
  return { ready: response.ok, checks: body?.checks ?? {}, message: response.ok ? null : (body?.message ?? null) };
}

/** The network's totals of users, channels and messages (GET /api/v2/stats). */
export function networkStats(): Promise<NetworkStats> {
  return call(api.GET('/api/v2/stats'));
}

/**
 * The answering instance: version, start time, outbox lag and open sockets (GET /api/v2/status, what
 * /metrics exposes to Prometheus, behind the console's own credentials).
 */
export function instanceStatus(): Promise<InstanceStatus> {
  return call(api.GET('/api/v2/status'));
}
