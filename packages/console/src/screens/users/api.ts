import { infiniteQueryOptions, type QueryClient, queryOptions } from '@tanstack/react-query';
import { serverUrl } from '../../api/base.js';
import { ApiError, api, authedFetch, call } from '../../api/client.js';
import { apiErrorOf } from '../../api/errors.js';
import { keysetPages } from '../../api/keyset.js';
import { type MutationConfig, useApiMutation } from '../../api/mutation.js';
import { rolesQuery } from '../../api/roles.js';
import type { AdminUser, UserFilter, UserUpdate } from '../../api/types.js';

/** The Users screen's reads and writes: the list, one user's profile, access, moderation and history. */

export const userKeys = {
  list: (search: string, filter: UserFilter) => ['users', 'list', search, filter] as const,
  lists: ['users', 'list'] as const,
  one: (userId: string) => ['users', 'one', userId] as const,
  sessions: (userId: string) => ['users', 'sessions', userId] as const,
  tokens: (userId: string) => ['users', 'tokens', userId] as const,
  messages: (userId: string) => ['users', 'messages', userId] as const,
  flags: (userId: string) => ['users', 'flags', userId] as const,
};

/** A page query: the size, and the token of the page to read (none for the first). */
const pageQuery = (limit: number, pageToken: string | null) => ({ limit, ...(pageToken === null ? {} : { pageToken }) });

/* Reads */

/** Users whose id or display name starts with `search` (all of them for ''), by user id. */
export const userListPages = (search: string, filter: UserFilter) =>
  keysetPages(userKeys.list(search, filter), async (pageToken) => {
    const query = { filter, ...(search === '' ? {} : { search }), ...pageQuery(25, pageToken) };
    const answer = await call(api.GET('/api/v2/users', { params: { query } }));
    return { items: answer.users.map((entry): AdminUser => entry.info), next: answer.paging.next };
  });

/** One user (GET /api/v2/users/{userId}), or null when there is none. */
async function findUser(userId: string): Promise<AdminUser | null> {
  try {
    return await call(api.GET('/api/v2/users/{userId}', { params: { path: { userId } } }));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export const userQuery = (userId: string) => queryOptions({ queryKey: userKeys.one(userId), queryFn: () => findUser(userId) });

/** The role names a profile offers, from the roles the Roles screen reads (one request, one cache entry). */
export const roleNamesQuery = () => queryOptions({ ...rolesQuery(), select: (data) => data.roles.map((role) => role.publicId) });

export const sessionsQuery = (userId: string) =>
  queryOptions({ queryKey: userKeys.sessions(userId), queryFn: () => call(api.GET('/api/v2/users/{userId}/sessions', { params: { path: { userId } } })) });

export const tokensQuery = (userId: string) =>
  queryOptions({ queryKey: userKeys.tokens(userId), queryFn: () => call(api.GET('/api/v2/users/{userId}/tokens', { params: { path: { userId } } })) });

/**
 * The user's messages across channels, newest first, with the channels' names. The server walks a
 * bounded stretch of all messages a page, so a page may be empty while `next` goes on; `scannedTo` is
 * how far back a page searched (null once it reached the oldest message).
 */
export const userMessagesQuery = (userId: string) =>
  infiniteQueryOptions({
    queryKey: userKeys.messages(userId),
    queryFn: async ({ pageParam }) => {
      const answer = await call(api.GET('/api/v2/users/{userId}/messages', { params: { path: { userId }, query: pageQuery(20, pageParam) } }));
      const names = new Map(answer.channels.map((channel) => [channel.channelId, channel.displayName]));
      return {
        items: answer.messages.map((message) => ({ message, channelName: names.get(message.channelId) ?? '' })),
        next: answer.paging.next,
        scannedTo: answer.scannedTo,
      };
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next ?? undefined,
  });

/** The flags the user received, newest first. */
export const userFlagsPages = (userId: string) =>
  keysetPages(userKeys.flags(userId), async (pageToken) => {
    const answer = await call(api.GET('/api/v2/users/{userId}/flags', { params: { path: { userId }, query: pageQuery(20, pageToken) } }));
    return { items: answer.flags, next: answer.paging.next };
  });

/* Profile */

/** PUT /api/v2/users: changes only the fields sent; answers the user, which replaces the cached one. */
export const useSaveProfile = () =>
  useApiMutation(
    (body: UserUpdate) => call(api.PUT('/api/v2/users', { body })),
    (queryClient, saved, body) => {
      queryClient.setQueryData(userKeys.one(body.userId), saved);
    },
  );

/** PUT /api/v2/users/{userId}/avatar, a multipart upload (outside the typed client, which sends JSON). */
async function uploadAvatar(userId: string, file: File): Promise<void> {
  const form = new FormData();
  form.append('file', file);
  const url = serverUrl(`/api/v2/users/${encodeURIComponent(userId)}/avatar`);
  const response = await authedFetch(new Request(url, { method: 'PUT', body: form }));
  if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => null));
}

export const useUploadAvatar = (userId: string, config: MutationConfig<void, File> = {}) =>
  useApiMutation(
    (file: File) => uploadAvatar(userId, file),
    (queryClient) => queryClient.invalidateQueries({ queryKey: userKeys.one(userId) }),
    config,
  );

/* Access */

const refreshCredentials = async (queryClient: QueryClient, userId: string) => {
  await queryClient.invalidateQueries({ queryKey: userKeys.sessions(userId) });
  await queryClient.invalidateQueries({ queryKey: userKeys.tokens(userId) });
};

/** Sets the user's sign-in password; the server signs them out everywhere when it changes. */
export const useSetPassword = (userId: string, config: MutationConfig<unknown, string> = {}) =>
  useApiMutation(
    (password: string) => call(api.PUT('/api/v2/users', { body: { userId, password } })),
    (queryClient) => refreshCredentials(queryClient, userId),
    config,
  );

export const useRevokeSession = (userId: string) =>
  useApiMutation(
    (sessionId: string) => call(api.DELETE('/api/v2/users/{userId}/sessions/{sessionId}', { params: { path: { userId, sessionId } } })),
    (queryClient) => refreshCredentials(queryClient, userId),
  );

/** Revokes an access token, or a grant (with its refresh token and the access tokens issued from it). */
export const useRevokeToken = (userId: string) =>
  useApiMutation(
    (tokenId: string) => call(api.DELETE('/api/v2/users/{userId}/tokens/{tokenId}', { params: { path: { userId, tokenId } } })),
    (queryClient) => refreshCredentials(queryClient, userId),
  );

const signOut = (userId: string) => call(api.POST('/api/v2/users/{userId}/signout', { params: { path: { userId } } }));

/** Revokes every login session, grant and access token of the user. */
export const useSignOutEverywhere = (userId: string, config: MutationConfig<Awaited<ReturnType<typeof signOut>>, void> = {}) =>
  useApiMutation(
    () => signOut(userId),
    (queryClient) => refreshCredentials(queryClient, userId),
    config,
  );

/* Moderation */

/** The record, the lists that filter on bans and flags, and the flags received. */
const refreshModeration = (queryClient: QueryClient, userId: string) =>
  Promise.all([
    queryClient.invalidateQueries({ queryKey: userKeys.one(userId) }),
    queryClient.invalidateQueries({ queryKey: userKeys.lists }),
    queryClient.invalidateQueries({ queryKey: userKeys.flags(userId) }),
  ]);

/** A global ban; `minutes` undefined: until lifted. */
export const useBanUser = (userId: string, config: MutationConfig<unknown, number | undefined> = {}) =>
  useApiMutation(
    (minutes: number | undefined) => call(api.POST('/api/v2/users/ban', { body: { userId, ...(minutes === undefined ? {} : { minutes }) } })),
    (queryClient) => refreshModeration(queryClient, userId),
    config,
  );

export const useUnbanUser = (userId: string, config: MutationConfig<unknown, void> = {}) =>
  useApiMutation(
    () => call(api.POST('/api/v2/users/unban', { body: { userId } })),
    (queryClient) => refreshModeration(queryClient, userId),
    config,
  );

/** Clears the user's flags; the answered user replaces the cached one before the lists are read again. */
export const useClearFlags = (userId: string) =>
  useApiMutation(
    () => call(api.DELETE('/api/v2/users/{userId}/flags', { params: { path: { userId } } })),
    async (queryClient, saved) => {
      queryClient.setQueryData(userKeys.one(userId), saved);
      await refreshModeration(queryClient, userId);
    },
  );
