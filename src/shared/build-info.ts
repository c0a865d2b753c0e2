import { readFileSync } from 'node:fs';

/**
 * What the running server is: its version, read once from the repository's package.json (the one
 * place a release sets it), and when this process started. /openapi.json and GET /api/v2/status
 * state both; the start time is computed as prom-client computes /metrics' process_start_time.
 */
function versionOfPackage(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const { version } = JSON.parse(text) as { version?: unknown };
  if (typeof version !== 'string' || version === '') throw new Error('package.json has no version');
  return version;
}

export const PARLEY_VERSION = versionOfPackage();

/** When this process started, in ms since the epoch. */
export const PROCESS_STARTED_AT = Date.now() - Math.round(process.uptime() * 1000);
