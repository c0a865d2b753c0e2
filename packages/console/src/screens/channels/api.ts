import { api, call } from '../../api/client.js';
import type { AdminMessage, AdminUser, OneChannel, OutgoingMessageBody } from '../../api/types.js';

/** The admin API's channel routes as the channel screens use them. */

export const channelKeys = {
  all: ['channels'] as const,
  list: (filters: ChannelFilters) => ['channels', 'list', filters] as const,
  one: (channelId: string) => ['channels', 'one', channelId] as const,
  members: (channelId: string) => ['channels', 'members', channelId] as const,
  retention: (channelId: string) => ['channels', 'retention', channelId] as const,
  messages: (channelId: string, parentId: string | null) => ['channels', 'messages', channelId, parentId] as const,
};

export interface ChannelFilters {
  /** Only channels this user is a member of. */
  userId: string;
  tags: string[];
  excludeTags: string[];
  /** The calling admin's own membership. */
  filter: 'all' | 'member' | 'notMember';
}

const PAGE_SIZE = 25;

/** A page of POST /api/v2/channels, newest first; the token goes with the same filters. */
export async function channelPage(filters: ChannelFilters, token: string | null) {
  const answer = await call(
    api.POST('/api/v2/channels', {
      body: {
        filter: filters.filter,
        ...(filters.userId.trim() === '' ? {} : { userId: filters.userId.trim() }),
        ...(filters.tags.length === 0 ? {} : { tags: filters.tags }),
        ...(filters.excludeTags.length === 0 ? {} : { excludeTags: filters.excludeTags }),
        options: token === null ? { limit: PAGE_SIZE } : { limit: PAGE_SIZE, token },
      },
    }),
  );
  return { items: answer.results, next: answer.paging.next };
}

export interface NewChannel {
  channelId: string;
  displayName: string;
  tags: string[];
  userIds: string[];
}

export function createChannel(input: NewChannel) {
  const body = {
    channelId: input.channelId.trim(),
    type: 'standard' as const,
    ...(input.displayName.trim() === '' ? {} : { displayName: input.displayName.trim() }),
    ...(input.tags.length === 0 ? {} : { tags: input.tags }),
    ...(input.userIds.length === 0 ? {} : { userIds: input.userIds }),
  };
  return call(api.POST('/api/v2/channel', { body }));
}

/** One channel, open or closed, with the calling admin's membership (GET /api/v2/channel/{channelId}). */
export function getChannel(channelId: string): Promise<OneChannel> {
  return call(api.GET('/api/v2/channel/{channelId}', { params: { path: { channelId } } }));
}

export function renameChannel(channelId: string, displayName: string) {
  return call(api.POST('/api/v2/channel/{channelId}/displayName', { params: { path: { channelId } }, body: { displayName } }));
}

export function closeChannel(channelId: string) {
  return call(api.POST('/api/v2/channel/{channelId}/close', { params: { path: { channelId } } }));
}

/** mutePeriod in milliseconds; 0 unmutes. */
export function muteChannel(channelId: string, mutePeriod: number) {
  return call(api.PUT('/api/v2/channel/{channelId}/mute', { params: { path: { channelId } }, body: { mutePeriod } }));
}

export function getRetention(channelId: string) {
  return call(api.GET('/api/v2/channel/{channelId}/retention', { params: { path: { channelId } } })).then((answer) => answer.data);
}

export function setRetention(channelId: string, days: number | null) {
  return call(api.PUT('/api/v2/channel/{channelId}/retention', { params: { path: { channelId } }, body: { days } })).then((answer) => answer.data);
}

/* Members */

/** A page of the channel's members and banned users, with their accounts, by user id. */
export async function memberPage(channelId: string, pageToken: string | null) {
  const query = { limit: PAGE_SIZE, ...(pageToken === null ? {} : { pageToken }) };
  const answer = await call(api.GET('/api/v2/channel/{channelId}/users', { params: { path: { channelId }, query } }));
  return { items: answer.results, next: answer.paging.next };
}

export function addMembers(channelId: string, userIds: string[]) {
  return call(api.POST('/api/v2/channel/{channelId}/users', { params: { path: { channelId } }, body: { userIds } }));
}

export function removeMembers(channelId: string, userIds: string[]) {
  return call(api.DELETE('/api/v2/channel/{channelId}/users', { params: { path: { channelId } }, body: { userIds } }));
}

/** mutePeriod in milliseconds; 0 unmutes. */
export function muteMembers(channelId: string, userIds: string[], mutePeriod: number) {
  return call(api.PUT('/api/v2/channel/{channelId}/users/mute', { params: { path: { channelId } }, body: { userIds, mutePeriod } }));
}

/** minutes: the ban is lifted then; undefined: it lasts until lifted. */
export function banMembers(channelId: string, userIds: string[], minutes?: number) {
  return call(
    api.POST('/api/v2/channel/{channelId}/users/ban', { params: { path: { channelId } }, body: { userIds, ...(minutes === undefined ? {} : { minutes }) } }),
  );
}

export function unbanMembers(channelId: string, userIds: string[]) {
  return call(api.POST('/api/v2/channel/{channelId}/users/unban', { params: { path: { channelId } }, body: { userIds } }));
}

/* Messages */

export interface MessagePage {
  messages: AdminMessage[];
  users: AdminUser[];
  /** The token of the page of older messages; null once the oldest is loaded. */
  older: string | null;
}

export const MESSAGE_PAGE_SIZE = 30;

/**
 * A page of the channel's messages (or of one message's comments), newest page first: without a
 * token the newest `last` messages, with one the page before it. Keyset pages on channelSegment, so a
 * page costs the same in a channel of any length.
 */
export async function messagePage(channelId: string, parentId: string | null, older: string | null): Promise<MessagePage> {
  const answer = await call(
    api.POST('/api/v2/messages', {
      body: {
        channelId,
        ...(parentId === null ? { filterByParentId: true } : { parentId }),
        options: older === null ? { last: MESSAGE_PAGE_SIZE } : { token: older },
      },
    }),
  );
  // A page is answered oldest first; the browser shows newest first.
  return { messages: [...answer.data.messages].reverse(), users: answer.data.users, older: answer.paging.prev };
}

export interface OutgoingMessage {
  channelId: string;
  text: string;
  tags: string[];
  parentId: string | null;
}

/** POST /api/v2/message as a text message, sent as the calling admin. */
export function sendMessage(input: OutgoingMessage) {
  const body: OutgoingMessageBody = {
    channelId: input.channelId,
    type: 'text' as const,
    data: { text: input.text },
    ...(input.tags.length === 0 ? {} : { tags: input.tags }),
    ...(input.parentId === null || input.parentId.trim() === '' ? {} : { parentId: input.parentId.trim() }),
  };
  return call(api.POST('/api/v2/message', { body }));
}

export function deleteMessage(messageId: string) {
  return call(api.DELETE('/api/v2/message/{messageId}', { params: { path: { messageId } } }));
}

/** Ids typed in one box: split on commas, spaces and new lines, blanks and repeats dropped. */
export function idsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((id) => id !== ''))];
}
