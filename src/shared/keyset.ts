import { filterFields, filtersOfPage, type PageTokens, type Paging } from './paging.js';

/** A keyset position in a list ordered newest first by (time, id); `older` reads on towards older items. */
export interface KeysetCursor {
  at: number;
  id: string;
  older: boolean;
}

/** A page token: the item to continue from (its time and id), the way, the page size, the filters' key and, when small, the filters. */
interface NewestFirstCursor extends Record<string, unknown> {
  a: number;
  i: string;
  d: 'n' | 'p';
  n: number;
  f: string;
  q?: unknown;
}

const isNewestFirstCursor = (value: Record<string, unknown>): value is NewestFirstCursor =>
  Number.isSafeInteger(value.a) &&
  typeof value.i === 'string' &&
  (value.d === 'n' || value.d === 'p') &&
  Number.isInteger(value.n) &&
  typeof value.f === 'string';

export interface NewestFirstInput<T, F extends Record<string, unknown>> {
  pageTokens: PageTokens;
  pageToken?: string | undefined;
  limit?: number | undefined;
  defaultLimit: number;
  /**
   * The request's filters (what the list is of). A token carries them and continues only that list:
   * sent with other filters it is a 400.
   */
  filters: F;
  /**
   * The filters of a request that names none, and how to recognise filters read back from a token:
   * given, a token sent alone continues its own list with the filters it carries.
   */
  unfiltered?: { filters: F; isFilters: (value: unknown) => value is F };
  /**
   * Up to limit + 1 items after the cursor in its direction, answered newest first: towards older
   * items the newest are read first; towards newer ones the store reads oldest first and reverses.
   */
  fetch: (limit: number, cursor: KeysetCursor | null, filters: F) => Promise<T[]>;
  keyOf: (item: T) => { at: number; id: string };
}

/**
 * One page of a list newest first by (time, id), as every such admin list pages (audit, moderation
 * queue, a user's flags): `next` continues towards older items, `prev` back towards newer ones.
 */
export async function newestFirstPage<T, F extends Record<string, unknown>>(input: NewestFirstInput<T, F>): Promise<{ items: T[]; paging: Paging }> {
  const { pageTokens } = input;
  const cursor = input.pageToken ? pageTokens.decode(input.pageToken, isNewestFirstCursor) : null;
  const unfiltered = input.unfiltered ?? { filters: input.filters, isFilters: (_value: unknown): _value is F => false };
  const filters = filtersOfPage(input.filters, unfiltered.filters, cursor, unfiltered.isFilters);
  const carried = filterFields(filters);
  const limit = input.limit ?? cursor?.n ?? input.defaultLimit;
  const backwards = cursor?.d === 'p';
  const fetched = await input.fetch(limit, cursor === null ? null : { at: cursor.a, id: cursor.i, older: !backwards }, filters);
  const hasMore = fetched.length > limit;
  const items = backwards ? fetched.slice(hasMore ? 1 : 0) : fetched.slice(0, limit);
  const first = items[0];
  const last = items[items.length - 1];
  const tokenOf = (item: T, d: 'n' | 'p') => {
    const at = input.keyOf(item);
    return pageTokens.encode({ a: at.at, i: at.id, d, n: limit, ...carried });
  };
  return {
    items,
    paging: {
      next: last && (backwards || hasMore) ? tokenOf(last, 'n') : null,
      prev: first && (backwards ? hasMore : cursor !== null) ? tokenOf(first, 'p') : null,
    },
  };
}
