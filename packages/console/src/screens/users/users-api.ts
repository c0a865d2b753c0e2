import { api, ApiError, call } from '../../api/client.js';
import type { AdminUser, InspectedTrayPage, UserFilter } from '../../api/types.js';

export const userKeys = {
  list: (search: string, filter: UserFilter) => ['users', 'list', search, filter] as const,
  lists: ['users', 'list'] as const,
  one: (userId: string) => ['users', 'one', userId] as const,
  sessions: (userId: string) => ['users', 'sessions', userId] as const,
  tokens: (userId: string) => ['users', 'tokens', userId] as const,
  messages: (userId: string) => ['users', 'messages', userId] as const,
  flags: (userId: string) => ['users', 'flags', userId] as const,
  tray: (userId: string) => ['users', 'tray', userId] as const,
  roles: ['roles'] as const,
};

/** A page query: the size, and the token of the page to read (none for the first). */
const pageQuery = (limit: number, pageToken: string | null) => ({ limit, ...(pageToken === null ? {} : { pageToken }) });

export async function listUsers(search: string, filter: UserFilter, pageToken: string | null) {
  const query = { filter, ...(search === '' ? {} : { search }), ...pageQuery(25, pageToken) };
  const answer = await call(api.GET('/api/v2/users', { params: { query } }));
  return { items: answer.users.map((entry): AdminUser => entry.info), next: answer.paging.next };
}

/** One user (GET /api/v2/users/{userId}), or null when there is none. */
export async function findUser(userId: string): Promise<AdminUser | null> {
  try {
    return await call(api.GET('/api/v2/users/{userId}', { params: { path: { userId } } }));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * A page of the user's messages across channels, newest first, with the channels' names. The server
 * walks a bounded stretch of all messages a page, so a page may be empty while `next` goes on;
 * `scannedTo` is how far back this page searched (null once it reached the oldest message).
 */
export async function userMessages(userId: string, pageToken: string | null) {
  const answer = await call(api.GET('/api/v2/users/{userId}/messages', { params: { path: { userId }, query: pageQuery(20, pageToken) } }));
  const names = new Map(answer.channels.map((channel) => [channel.channelId, channel.displayName]));
  return {
    items: answer.messages.map((message) => ({ message, channelName: names.get(message.channelId) ?? '' })),
    next: answer.paging.next,
    scannedTo: answer.scannedTo,
  };
}

/** A page of the flags the user received, newest first. */
export async function userFlags(userId: string, pageToken: string | null) {
  const answer = await call(api.GET('/api/v2/users/{userId}/flags', { params: { path: { userId }, query: pageQuery(20, pageToken) } }));
  return { items: answer.flags, next: answer.paging.next };
}

/** A page of the user's tray as their app renders it; reading it changes nothing for them. */
export function userTray(userId: string, pageToken: string | null): Promise<InspectedTrayPage> {
  return call(api.GET('/api/v2/users/{userId}/tray', { params: { path: { userId }, query: pageQuery(20, pageToken) } }));
}

export async function listRoleNames(): Promise<string[]> {
  const answer = await call(api.GET('/api/v2/roles'));
  return answer.data.roles.map((role) => role.publicId);
}
