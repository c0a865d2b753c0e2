import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** The Tray inspector's reads: users to pick from, and a user's tray a page at a time. */

export const trayKeys = {
  pick: (search: string) => ['users', 'pick', search] as const,
  records: (userId: string) => ['users', 'tray', userId] as const,
};

/** The first page of users whose id or display name starts with `search` (none asked for an empty search). */
export const userPickQuery = (search: string) =>
  queryOptions({
    queryKey: trayKeys.pick(search),
    queryFn: () => call(api.GET('/api/v2/users', { params: { query: { filter: 'all', ...(search === '' ? {} : { search }), limit: 25 } } })),
    select: (answer) => answer.users.map((entry) => entry.info.userId),
    enabled: search !== '',
  });

/** GET /api/v2/users/{userId}/tray as the user's app renders it; reading it changes nothing for them. */
export const trayPagesQuery = (userId: string) =>
  infiniteQueryOptions({
    queryKey: trayKeys.records(userId),
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/v2/users/{userId}/tray', { params: { path: { userId }, query: { limit: 20, ...(pageParam === null ? {} : { pageToken: pageParam }) } } }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.paging.next ?? undefined,
  });
