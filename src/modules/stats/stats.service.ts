import { PARLEY_VERSION, PROCESS_STARTED_AT } from '../../shared/build-info.js';
import type { Clock } from '../../clock.js';
import type { Executor } from '../../storage/database.js';
import { type DailyFigures, readDailyFigures } from './daily-stats.js';
import { createStatsStore, type TotalsRow } from './stats.store.js';

/** What this instance knows of itself at the moment: the figures /metrics also exposes. */
export interface InstanceSources {
  /** Committed outbox events this instance's relay has not yet handed on. */
  outboxLag(): Promise<number>;
  /** Real-time sockets open on this instance. */
  connectedSockets(): number;
}

export interface InstanceStatus {
  version: string;
  startedAt: number;
  outboxLag: number;
  sockets: number;
}

/** The admin API's view of the deployment: the network's totals, its figures per day, and the status of the instance that answers. */
export function createStatsService(deps: { db: Executor; clock: Clock; sources: InstanceSources }) {
  const store = createStatsStore(deps.db);
  return {
    totals(): Promise<TotalsRow> {
      return store.totals();
    },

    /** The last `days` UTC days, today included, oldest first (daily-stats.ts: read from the daily counters). */
    daily(days: number): Promise<DailyFigures[]> {
      return readDailyFigures(deps, days);
    },

    async status(): Promise<InstanceStatus> {
      return { version: PARLEY_VERSION, startedAt: PROCESS_STARTED_AT, outboxLag: await deps.sources.outboxLag(), sockets: deps.sources.connectedSockets() };
    },
  };
}

export type StatsService = ReturnType<typeof createStatsService>;
