import { queryOptions } from '@tanstack/react-query';
import { serverUrl } from './base.js';
import { authedFetch } from './client.js';
import { apiErrorOf } from './errors.js';

/**
 * The network's figures per UTC day (GET /api/v2/stats/daily), for the Overview's charts. Read with
 * the console's token through authedFetch; the answer's shape is declared here, as the server's
 * DailyStatsRecord (src/modules/stats/stats.present.ts) documents it.
 */

/** One UTC day's figures. */
export interface DailyFigures {
  /** The UTC day, 2025-03-14. */
  date: string;
  messages: number;
  activeUsers: number;
  signIns: number;
  flags: number;
  messageFlags: number;
  userFlags: number;
}

export interface DailyStats {
  from: string;
  to: string;
  days: DailyFigures[];
}

/** The counters move as things happen; a minute is fresh enough for charts of days. */
const REFRESH_MS = 60_000;

export const statsKeys = {
  all: ['stats'] as const,
  daily: (days: number) => ['stats', 'daily', days] as const,
};

async function dailyStats(days: number): Promise<DailyStats> {
  const response = await authedFetch(new Request(serverUrl(`/api/v2/stats/daily?days=${days}`), { headers: { accept: 'application/json' } }));
  const body = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) throw apiErrorOf(response.status, body);
  return body as DailyStats;
}

/** The last `days` days, today included, oldest first. */
export const dailyStatsQuery = (days: number) =>
  queryOptions({ queryKey: statsKeys.daily(days), queryFn: () => dailyStats(days), refetchInterval: REFRESH_MS });
