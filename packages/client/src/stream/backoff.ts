export interface BackoffOptions {
  /** The first retry's ceiling (default 500 ms). */
  initialMs?: number;
  /** The largest ceiling (default 30 s). */
  maxMs?: number;
  /** Each retry multiplies the ceiling by this (default 2). */
  factor?: number;
  /** The share of the ceiling that is random (0-1, default 0.5), so clients cut off together spread out. */
  jitter?: number;
}

/** The delay before retry number `attempt` (1-based): an exponential ceiling, the top part of it random. */
export function backoffDelay(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const { initialMs = 500, maxMs = 30_000, factor = 2, jitter = 0.5 } = options;
  const ceiling = Math.min(maxMs, initialMs * factor ** Math.max(0, attempt - 1));
  const share = Math.min(1, Math.max(0, jitter));
  return Math.round(ceiling * (1 - share) + ceiling * share * random());
}
