import { infiniteQueryOptions } from '@tanstack/react-query';

/** One page of a keyset-paged list: its rows and the token of the next page (null on the last). */
export interface KeysetPage<T> {
  items: T[];
  next: string | null;
}

/**
 * The query options of a `paging.next` list read a page at a time ("Load more"): `fetchPage(null)`
 * answers the first page, `fetchPage(token)` the page after it; `queryKey` names the list with its filters.
 */
export function keysetPages<T>(queryKey: readonly unknown[], fetchPage: (pageToken: string | null) => Promise<KeysetPage<T>>) {
  return infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next ?? undefined,
  });
}

export type KeysetPagesOptions<T> = ReturnType<typeof keysetPages<T>>;
