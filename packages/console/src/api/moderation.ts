import { useQuery } from '@tanstack/react-query';
import { api, call } from './client.js';
import type { FlaggedMessagesPage, FlaggedUsersPage, MessageReviewInput, ReviewsPage, UserReviewInput } from './types.js';

/** How often the console asks for the queue summary: the queue and the nav count follow it. */
export const SUMMARY_POLL_MS = 3000;

export const moderationKeys = {
  summary: ['moderation', 'summary'] as const,
  all: ['moderation'] as const,
};

/** Polls GET /api/v2/moderation/summary every 3 s while the console is open (and the person may see the queue). */
export function useModerationSummary(enabled: boolean) {
  return useQuery({
    queryKey: moderationKeys.summary,
    queryFn: () => call(api.GET('/api/v2/moderation/summary')),
    refetchInterval: SUMMARY_POLL_MS,
    refetchIntervalInBackground: false,
    enabled,
  });
}

const PAGE_SIZE = 20;

/** A page query: the size, and the token of the page to read (none for the first). */
const pageQuery = (pageToken: string | null) => ({ limit: PAGE_SIZE, ...(pageToken === null ? {} : { pageToken }) });

/** The route answers the open page or the reviews, by the status asked: status=open is the open page. */
function openPage<Page extends { items: unknown[] }>(answer: Page | ReviewsPage): Page {
  if ('items' in answer) return answer;
  throw new Error('The server answered reviews where the open queue was asked for.');
}

export async function openMessages(pageToken: string | null): Promise<FlaggedMessagesPage> {
  return openPage(await call(api.GET('/api/v2/moderation/messages', { params: { query: { status: 'open', ...pageQuery(pageToken) } } })));
}

export async function openUsers(pageToken: string | null): Promise<FlaggedUsersPage> {
  return openPage(await call(api.GET('/api/v2/moderation/users', { params: { query: { status: 'open', ...pageQuery(pageToken) } } })));
}

export function reviews(targetType: 'message' | 'user', pageToken: string | null) {
  return call(api.GET('/api/v2/moderation/reviews', { params: { query: { targetType, ...pageQuery(pageToken) } } }));
}

export function reviewMessage(messageId: string, input: MessageReviewInput) {
  return call(api.POST('/api/v2/moderation/messages/{messageId}/review', { params: { path: { messageId } }, body: input }));
}

export function reviewUser(userId: string, input: UserReviewInput) {
  return call(api.POST('/api/v2/moderation/users/{userId}/review', { params: { path: { userId } }, body: input }));
}
