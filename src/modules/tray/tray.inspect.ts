import { filterKey, otherFiltersError, type PageTokens, type Paging } from '../../shared/paging.js';
import { type HistoryPage, TRAY_PAGE_SIZE, type TrayService } from './tray.service.js';

export interface InspectInput {
  pageToken?: string | undefined;
  limit?: number | undefined;
}

/** A page token of an inspected tray: the next page's searchAfter, the page size, the tray's key. */
interface TrayCursor extends Record<string, unknown> {
  b: number;
  n: number;
  f: string;
}

const isTrayCursor = (value: Record<string, unknown>): value is TrayCursor =>
  Number.isSafeInteger(value.b) && Number.isInteger(value.n) && typeof value.f === 'string';

/**
 * A user's tray as an administrator inspects it: the same history the user's app reads, a page of
 * `limit` records at a time, through signed page tokens (the admin API's paging) instead of the raw
 * searchAfter. It only reads: the user's read marks and last-read time stay as they are. The tray
 * pages towards older records only, so `prev` is always null.
 */
export function createTrayInspector(deps: { tray: TrayService; pageTokens: PageTokens; requireUser: (userId: string) => Promise<unknown> }) {
  return async function inspect(userId: string, input: InspectInput): Promise<{ page: HistoryPage; paging: Paging }> {
    await deps.requireUser(userId);
    const key = filterKey({ trayOf: userId });
    const cursor = input.pageToken ? deps.pageTokens.decode(input.pageToken, isTrayCursor) : null;
    if (cursor !== null && cursor.f !== key) throw otherFiltersError();
    const limit = input.limit ?? cursor?.n ?? TRAY_PAGE_SIZE;
    const page = await deps.tray.history(userId, cursor?.b, limit);
    const next = page.lastRecordDate === null ? null : deps.pageTokens.encode({ b: page.lastRecordDate, n: limit, f: key });
    return { page, paging: { next, prev: null } };
  };
}

export type TrayInspector = ReturnType<typeof createTrayInspector>;
