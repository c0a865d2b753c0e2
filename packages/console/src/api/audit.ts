import { api, call } from './client.js';
import { keysetPages } from './keyset.js';

/** The audit trail (GET /api/v2/audit), newest first, optionally only the actions naming `target`. */
export function auditPages(target: string | undefined, limit: number) {
  return keysetPages(['audit', target ?? null, limit], async (pageToken) => {
    const query: { limit: number; target?: string; pageToken?: string } = { limit };
    if (target !== undefined) query.target = target;
    if (pageToken !== null) query.pageToken = pageToken;
    const answer = await call(api.GET('/api/v2/audit', { params: { query } }));
    return { items: answer.entries, next: answer.paging.next };
  });
}
