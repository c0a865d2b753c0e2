import type { Clock } from '../../clock.js';
import { newestFirstPage } from '../../shared/keyset.js';
import type { PageTokens, Paging } from '../../shared/paging.js';
import type { Executor } from '../../storage/database.js';
import { createLiveSessionsStore, type LiveSessionRow } from './live-sessions.store.js';

export type { LiveSessionRow } from './live-sessions.store.js';

/** The filters a page token of the list carries: one user, or all (null). */
interface LiveSessionFilters extends Record<string, unknown> {
  u: string | null;
}

const isFilters = (value: unknown): value is LiveSessionFilters => {
  const u = (value as { u?: unknown } | null)?.u;
  return typeof value === 'object' && value !== null && (u === null || typeof u === 'string');
};

/**
 * Who is signed in where: every user's live login sessions (the browser's sign-in at the sign-in
 * pages), newest first, a page at a time. Each is revoked through the user's credentials
 * (DELETE /api/v2/users/{userId}/sessions/{sessionId}).
 */
export function createLiveSessions(deps: { db: Executor; clock: Clock; pageTokens: PageTokens }) {
  const store = createLiveSessionsStore(deps.db);
  return {
    list(input: {
      userId?: string | undefined;
      pageToken?: string | undefined;
      limit?: number | undefined;
    }): Promise<{ items: LiveSessionRow[]; paging: Paging }> {
      const now = deps.clock.now();
      return newestFirstPage({
        pageTokens: deps.pageTokens,
        pageToken: input.pageToken,
        limit: input.limit,
        defaultLimit: 25,
        filters: { u: input.userId ?? null },
        unfiltered: { filters: { u: null }, isFilters },
        fetch: (limit, cursor, filters) => store.page(now, filters.u, limit, cursor),
        keyOf: (row) => ({ at: row.created_at, id: row.id }),
      });
    },
  };
}

export type LiveSessions = ReturnType<typeof createLiveSessions>;
