import { randomBytes } from 'node:crypto';
import type { Executor } from './database.js';
import { loadOrCreateSetting } from './settings.js';

/** Where this deployment keeps its cross-instance state in Redis: the server, and the key prefix it owns there. */
export interface RedisTarget {
  url: string;
  /** `parley:<deployment id>:`, put before every key and pub/sub channel name. */
  namespace: string;
}

/**
 * Names the deployment by its database: instances on one database share a random id (created by the
 * first start), so they meet on the same channels and counters, while another deployment pointed at the
 * same Redis (staging beside production, two tenants) gets its own and never sees their wake-ups, rule
 * announcements or rate-limit counts (user ids like "alice" repeat across deployments).
 */
export async function redisTargetOf(db: Executor, url: string | null): Promise<RedisTarget | null> {
  if (url === null) return null;
  const deploymentId = await loadOrCreateSetting(db, 'deployment_id', () => randomBytes(8).toString('hex'));
  return { url, namespace: `parley:${deploymentId}:` };
}
