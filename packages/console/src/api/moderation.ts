import { useQuery } from '@tanstack/react-query';
import { api, call } from './client.js';

/** How often the console asks for the queue summary: the queue and the nav count follow it. */
export const SUMMARY_POLL_MS = 3000;

/** The queue's summary, which the navbar, the overview and the queue screen read (the queue's own lists: screens/queue/api.ts). */
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
