import { useInfiniteQuery } from '@tanstack/react-query';
import type { KeysetPagesOptions } from '../api/keyset.js';

export type { KeysetPage } from '../api/keyset.js';

export interface KeysetPages<T> {
  items: T[];
  hasMore: boolean;
  loadMore: () => void;
  isLoading: boolean;
  isLoadingMore: boolean;
  error: unknown;
  refetch: () => void;
}

/** A `paging.next` list read a page at a time ("Load more"), from the options an api.ts makes with `keysetPages`. */
export function useKeysetPages<T>(pages: KeysetPagesOptions<T>, options: { enabled?: boolean } = {}): KeysetPages<T> {
  const query = useInfiniteQuery({ ...pages, enabled: options.enabled ?? true });
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
