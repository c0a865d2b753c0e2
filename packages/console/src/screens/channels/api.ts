import { type InfiniteData, infiniteQueryOptions, type QueryClient, queryOptions } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { keysetPages } from '../../api/keyset.js';
import { type MutationConfig, useApiMutation } from '../../api/mutation.js';
import type { AdminMessage, AdminUser, OneChannel, OutgoingMessageBody } from '../../api/types.js';
import { download, filePath } from './media.js';

/** The admin API's channel routes as the channel screens use them: keys, query options and mutation hooks. */

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
async function channelPage(filters: ChannelFilters, token: string | null) {
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

/** The channels matching the filters, newest first. */
export const channelListPages = (filters: ChannelFilters) => keysetPages(channelKeys.list(filters), (token) => channelPage(filters, token));

export interface NewChannel {
  channelId: string;
  displayName: string;
  tags: string[];
  userIds: string[];
}

function createChannel(input: NewChannel) {
  const body = {
    channelId: input.channelId.trim(),
    type: 'standard' as const,
    ...(input.displayName.trim() === '' ? {} : { displayName: input.displayName.trim() }),
    ...(input.tags.length === 0 ? {} : { tags: input.tags }),
    ...(input.userIds.length === 0 ? {} : { userIds: input.userIds }),
  };
  return call(api.POST('/api/v2/channel', { body }));
}

/** Creates a channel; the lists are read again before the mutation settles. */
export const useCreateChannel = (config: MutationConfig<Awaited<ReturnType<typeof createChannel>>, NewChannel> = {}) =>
  useApiMutation(createChannel, (queryClient) => queryClient.invalidateQueries({ queryKey: channelKeys.all }), config);

/** One channel, open or closed, with the calling admin's membership (GET /api/v2/channel/{channelId}). */
function getChannel(channelId: string): Promise<OneChannel> {
  return call(api.GET('/api/v2/channel/{channelId}', { params: { path: { channelId } } }));
}

/** The channel record; not retried, since the page shows the record a list already loaded while it fails. */
export const channelQuery = (channelId: string) =>
  queryOptions({ queryKey: channelKeys.one(channelId), queryFn: () => getChannel(channelId).then((answer) => answer.channel), retry: false });

/** Renames the channel: the answered channel replaces the cached one, and the lists are read again. */
export const useRenameChannel = (channelId: string) =>
  useApiMutation(
    (displayName: string) => call(api.POST('/api/v2/channel/{channelId}/displayName', { params: { path: { channelId } }, body: { displayName } })),
    (queryClient, channel) => {
      queryClient.setQueryData(channelKeys.one(channelId), channel);
      void queryClient.invalidateQueries({ queryKey: [...channelKeys.all, 'list'] });
    },
  );

/** Closes the channel for good. */
export const useCloseChannel = (channelId: string, config: MutationConfig<unknown, void> = {}) =>
  useApiMutation(
    () => call(api.POST('/api/v2/channel/{channelId}/close', { params: { path: { channelId } } })),
    (queryClient) => queryClient.invalidateQueries({ queryKey: channelKeys.all }),
    config,
  );

/** Mutes the channel for `mutePeriod` milliseconds; 0 unmutes. */
export const useMuteChannel = (channelId: string, config: MutationConfig<unknown, number> = {}) =>
  useApiMutation(
    (mutePeriod: number) => call(api.PUT('/api/v2/channel/{channelId}/mute', { params: { path: { channelId } }, body: { mutePeriod } })),
    (queryClient) => queryClient.invalidateQueries({ queryKey: channelKeys.all }),
    config,
  );

function getRetention(channelId: string) {
  return call(api.GET('/api/v2/channel/{channelId}/retention', { params: { path: { channelId } } })).then((answer) => answer.data);
}

function setRetention(channelId: string, days: number | null) {
  return call(api.PUT('/api/v2/channel/{channelId}/retention', { params: { path: { channelId } }, body: { days } })).then((answer) => answer.data);
}

export const retentionQuery = (channelId: string) => queryOptions({ queryKey: channelKeys.retention(channelId), queryFn: () => getRetention(channelId) });

/** Sets the channel's own retention in days, or null for the server default; the answer replaces the cached one. */
export const useSetRetention = (channelId: string, config: MutationConfig<Awaited<ReturnType<typeof setRetention>>, number | null> = {}) =>
  useApiMutation(
    (days: number | null) => setRetention(channelId, days),
    (queryClient, retention) => {
      queryClient.setQueryData(channelKeys.retention(channelId), retention);
    },
    config,
  );

/* Members */

/** The channel's members and banned users, with their accounts, by user id. */
export const memberPages = (channelId: string) =>
  keysetPages(channelKeys.members(channelId), async (pageToken) => {
    const query = { limit: PAGE_SIZE, ...(pageToken === null ? {} : { pageToken }) };
    const answer = await call(api.GET('/api/v2/channel/{channelId}/users', { params: { path: { channelId }, query } }));
    return { items: answer.results, next: answer.paging.next };
  });

/**
 * A change to some users' membership: `mutePeriod` in milliseconds (0 unmutes); a ban's `minutes` lifts
 * it then, undefined keeps it until lifted.
 */
export type MemberChange =
  | { action: 'add' | 'remove' | 'unban'; userIds: string[] }
  | { action: 'mute'; userIds: string[]; mutePeriod: number }
  | { action: 'ban'; userIds: string[]; minutes: number | undefined };

function changeMembers(channelId: string, change: MemberChange) {
  const params = { path: { channelId } };
  const { userIds } = change;
  switch (change.action) {
    case 'add':
      return call(api.POST('/api/v2/channel/{channelId}/users', { params, body: { userIds } }));
    case 'remove':
      return call(api.DELETE('/api/v2/channel/{channelId}/users', { params, body: { userIds } }));
    case 'mute':
      return call(api.PUT('/api/v2/channel/{channelId}/users/mute', { params, body: { userIds, mutePeriod: change.mutePeriod } }));
    case 'ban':
      return call(
        api.POST('/api/v2/channel/{channelId}/users/ban', { params, body: { userIds, ...(change.minutes === undefined ? {} : { minutes: change.minutes }) } }),
      );
    case 'unban':
      return call(api.POST('/api/v2/channel/{channelId}/users/unban', { params, body: { userIds } }));
  }
}

/** The members and the channel's counts are read again after a change, without holding the mutation. */
const refreshMembers = (queryClient: QueryClient, channelId: string) => {
  void queryClient.invalidateQueries({ queryKey: channelKeys.members(channelId) });
  void queryClient.invalidateQueries({ queryKey: channelKeys.one(channelId) });
};

/** Changes some users' membership. A screen may carry its own fields in the change (a sentence to show once done); only the change is sent. */
export const useChangeMembers = <Change extends MemberChange = MemberChange>(channelId: string, config: MutationConfig<unknown, Change> = {}) =>
  useApiMutation(
    (change: Change) => changeMembers(channelId, change),
    (queryClient) => refreshMembers(queryClient, channelId),
    config,
  );

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
async function messagePage(channelId: string, parentId: string | null, older: string | null): Promise<MessagePage> {
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

/** A thread of messages (`parentId` null: the channel's top level), newest page first; "older" pages follow. */
export const messagesQuery = (channelId: string, parentId: string | null) =>
  infiniteQueryOptions({
    queryKey: channelKeys.messages(channelId, parentId),
    queryFn: ({ pageParam }) => messagePage(channelId, parentId, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.older ?? undefined,
  });

export interface OutgoingMessage {
  channelId: string;
  text: string;
  tags: string[];
  parentId: string | null;
}

/** POST /api/v2/message as a text message, sent as the calling admin. */
function sendMessage(input: OutgoingMessage) {
  const body: OutgoingMessageBody = {
    channelId: input.channelId,
    type: 'text' as const,
    data: { text: input.text },
    ...(input.tags.length === 0 ? {} : { tags: input.tags }),
    ...(input.parentId === null || input.parentId.trim() === '' ? {} : { parentId: input.parentId.trim() }),
  };
  return call(api.POST('/api/v2/message', { body }));
}

/** Sends a message; the thread it went to (the channel's top level, or a message's comments) is read again. */
export const useSendMessage = (channelId: string, config: MutationConfig<Awaited<ReturnType<typeof sendMessage>>, OutgoingMessage> = {}) =>
  useApiMutation(
    sendMessage,
    (queryClient, _answer, input) => {
      const parentId = input.parentId === null || input.parentId.trim() === '' ? null : input.parentId.trim();
      return queryClient.invalidateQueries({ queryKey: channelKeys.messages(channelId, parentId) });
    },
    config,
  );

/** Puts the answered (deleted) record in place of the message in the thread's loaded pages. */
function replaceMessage(data: InfiniteData<MessagePage> | undefined, record: AdminMessage): InfiniteData<MessagePage> | undefined {
  if (!data) return data;
  return {
    ...data,
    pages: data.pages.map((page) => ({ ...page, messages: page.messages.map((message) => (message.messageId === record.messageId ? record : message)) })),
  };
}

/** Deletes a message of the thread; its answered record (deleted) replaces it where it is shown. */
export const useDeleteMessage = (channelId: string, parentId: string | null) =>
  useApiMutation(
    (messageId: string) => call(api.DELETE('/api/v2/message/{messageId}', { params: { path: { messageId } } })),
    (queryClient, answer) => {
      const record = answer.data.messages[0];
      if (record) queryClient.setQueryData<InfiniteData<MessagePage>>(channelKeys.messages(channelId, parentId), (data) => replaceMessage(data, record));
    },
  );

/** Saves a file message's file under its name, as a link with `download` would. */
export const useDownloadFile = () =>
  useApiMutation(({ messageId, fileName }: { messageId: string; fileName: string }) => download(filePath(messageId), fileName), null);

/** Ids typed in one box: split on commas, spaces and new lines, blanks and repeats dropped. */
export function idsOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((id) => id !== ''))];
}
