import { queryOptions } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { keysetPages } from '../../api/keyset.js';
import { useApiMutation } from '../../api/mutation.js';
import type {
  AdminMessage,
  AdminUser,
  FlaggedMessage,
  FlaggedUser,
  MessageReviewInput,
  MessagesQuery,
  Review,
  ReviewsPage,
  UserReviewInput,
} from '../../api/types.js';

/**
 * The moderation queue's reads and writes. The queue's lists live under `queueKeys.all`, which the
 * screen refetches when the polled summary (api/moderation.ts) changes.
 */

export const queueKeys = {
  all: ['moderation', 'queue'] as const,
  openMessages: ['moderation', 'queue', 'open', 'messages'] as const,
  openUsers: ['moderation', 'queue', 'open', 'users'] as const,
  reviews: (targetType: 'message' | 'user') => ['moderation', 'queue', 'reviews', targetType] as const,
  thread: (messageId: string) => ['thread', messageId] as const,
};

const PAGE_SIZE = 20;

/** A page query: the size, and the token of the page to read (none for the first). */
const pageQuery = (pageToken: string | null) => ({ limit: PAGE_SIZE, ...(pageToken === null ? {} : { pageToken }) });

/** The route answers the open page or the reviews, by the status asked: status=open is the open page. */
function openPage<Page extends { items: unknown[] }>(answer: Page | ReviewsPage): Page {
  if ('items' in answer) return answer;
  throw new Error('The server answered reviews where the open queue was asked for.');
}

/** Open flagged messages, newest flag first. */
export const openMessagesPages = () =>
  keysetPages<FlaggedMessage>(queueKeys.openMessages, async (pageToken) => {
    const page = openPage(await call(api.GET('/api/v2/moderation/messages', { params: { query: { status: 'open', ...pageQuery(pageToken) } } })));
    return { items: page.items, next: page.paging.next };
  });

/** What narrows the open messages: a channel id, a reporter's user id, a text of a flag's reason ('' for any). */
export interface OpenMessageFilters {
  channelId: string;
  reporter: string;
  reason: string;
}

/** Open flagged messages with the filters (GET /api/v2/moderation/messages takes them; its page tokens carry them). */
export const filteredOpenMessagesPages = (filters: OpenMessageFilters) =>
  keysetPages<FlaggedMessage>([...queueKeys.openMessages, filters], async (pageToken) => {
    const narrowing: Record<string, string> = {};
    for (const key of ['channelId', 'reporter', 'reason'] as const) if (filters[key].trim() !== '') narrowing[key] = filters[key].trim();
    const query = { status: 'open' as const, ...narrowing, ...pageQuery(pageToken) };
    const page = openPage(await call(api.GET('/api/v2/moderation/messages', { params: { query } })));
    return { items: page.items, next: page.paging.next };
  });

/** One review of a bulk decision, outside a hook: the bulk runner calls it per message, one at a time. */
export const reviewMessage = (messageId: string, input: MessageReviewInput) =>
  call(api.POST('/api/v2/moderation/messages/{messageId}/review', { params: { path: { messageId } }, body: input }));

/** Open flagged users, newest flag first. */
export const openUsersPages = () =>
  keysetPages<FlaggedUser>(queueKeys.openUsers, async (pageToken) => {
    const page = openPage(await call(api.GET('/api/v2/moderation/users', { params: { query: { status: 'open', ...pageQuery(pageToken) } } })));
    return { items: page.items, next: page.paging.next };
  });

/** Decisions already taken, newest first (GET /api/v2/moderation/reviews). */
export const reviewsPages = (targetType: 'message' | 'user') =>
  keysetPages<Review>(queueKeys.reviews(targetType), async (pageToken) => {
    const page = await call(api.GET('/api/v2/moderation/reviews', { params: { query: { targetType, ...pageQuery(pageToken) } } }));
    return { items: page.reviews, next: page.paging.next };
  });

/* The thread around a flagged message */

/** How many messages of context are shown on each side of a flagged one. */
const AROUND = 3;

export interface ThreadContext {
  before: AdminMessage[];
  after: AdminMessage[];
  /** The message commented on, when the flagged message is a comment. */
  parent: AdminMessage | null;
  /** Comments of the flagged message (top-level) or its siblings (a comment), first ones. */
  comments: AdminMessage[];
  authors: Map<string, AdminUser>;
}

async function messages(body: MessagesQuery) {
  return call(api.POST('/api/v2/messages', { body }));
}

/**
 * The thread around a message, read with the admin message routes: the messages just before and after
 * it on the same level (top-level messages, or the comments of the same parent), its parent when it is
 * a comment, and the first comments of a top-level message.
 */
async function loadThreadContext(message: AdminMessage): Promise<ThreadContext> {
  const level: Pick<MessagesQuery, 'parentId' | 'filterByParentId'> = message.parentId ? { parentId: message.parentId } : { filterByParentId: true };
  const segment = message.channelSegment;
  const [before, after, parent, comments] = await Promise.all([
    messages({ channelId: message.channelId, ...level, options: { before: segment, last: AROUND } }),
    messages({ channelId: message.channelId, ...level, options: { after: segment, first: AROUND } }),
    message.parentId ? call(api.GET('/api/v2/message/{messageId}', { params: { path: { messageId: message.parentId } } })) : Promise.resolve(null),
    !message.parentId && message.childrenNumber > 0
      ? messages({ channelId: message.channelId, parentId: message.messageId, options: { first: AROUND } })
      : Promise.resolve(null),
  ]);
  const authors = new Map<string, AdminUser>();
  for (const user of [...before.data.users, ...after.data.users, ...(comments?.data.users ?? [])]) authors.set(user.userId, user);
  if (parent?.user) authors.set(parent.user.userId, parent.user);
  const notSelf = (item: AdminMessage) => item.messageId !== message.messageId;
  return {
    before: before.data.messages.filter(notSelf),
    after: after.data.messages.filter(notSelf),
    parent: parent?.message ?? null,
    comments: comments?.data.messages ?? [],
    authors,
  };
}

/** The thread of a flagged message, read when the moderator opens it. */
export const threadQuery = (message: AdminMessage) =>
  queryOptions({ queryKey: queueKeys.thread(message.messageId), queryFn: () => loadThreadContext(message) });

/* Decisions */

/** A decision on a flagged message; the card keeps its outcome until the screen is left. */
export const useReviewMessage = (messageId: string) =>
  useApiMutation(
    (input: MessageReviewInput) => call(api.POST('/api/v2/moderation/messages/{messageId}/review', { params: { path: { messageId } }, body: input })),
    null,
  );

/** A decision on a flagged user. */
export const useReviewUser = (userId: string) =>
  useApiMutation((input: UserReviewInput) => call(api.POST('/api/v2/moderation/users/{userId}/review', { params: { path: { userId } }, body: input })), null);
