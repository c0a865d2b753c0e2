import { useInfiniteQuery } from '@tanstack/react-query';

/** One page of a keyset-paged list: its rows and the token of the next page (null on the last). */
export interface KeysetPage<T> {
  items: T[];
  next: string | null;
}

export interface KeysetPages<T> {
  items: T[];
  hasMore: boolean;
  loadMore: () => void;
  isLoading: boolean;
  isLoadingMore: boolean;
  error: unknown;
  refetch: () => void;
}

/**
 * A `paging.next` list read a page at a time ("Load more"). `fetchPage(null)` answers the first page,
 * `fetchPage(token)` the page after it; `key` is the react-query key (include the filters).
 */
export function useKeysetPages<T>(
  key: readonly unknown[],
  fetchPage: (pageToken: string | null) => Promise<KeysetPage<T>>,
  options: { enabled?: boolean } = {},
): KeysetPages<T> {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next ?? undefined,
    enabled: options.enabled ?? true,
  });
  return {
    items: query.data?.pages.flatMap((page) => page.items) ?? [],
    hasMore: query.hasNextPage,
    loadMore: () => void query.fetchNextPage(),
    isLoading: query.isLoading,
    isLoadingMore: query.isFetchingNextPage,
    error: query.error,
    refetch: () => void query.refetch(),
  };
}
