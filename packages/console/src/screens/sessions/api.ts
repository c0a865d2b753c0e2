import { api, call } from '../../api/client.js';
import { keysetPages } from '../../api/keyset.js';
import { useApiMutation } from '../../api/mutation.js';
import { adminRequest, type LiveSession, type LiveSessionsPage } from '../../api/operator.js';

/** The Sessions screen's reads and writes: every user's live login sessions, and revoking one. */

export const sessionKeys = {
  all: ['sessions', 'live'] as const,
  list: (userId: string) => ['sessions', 'live', userId] as const,
};

/** GET /api/v2/sessions, newest sign-in first, optionally of one user ('' for everyone). */
export const liveSessionPages = (userId: string) =>
  keysetPages<LiveSession>(sessionKeys.list(userId), async (pageToken) => {
    const query = { limit: 25, ...(userId === '' ? {} : { userId }), ...(pageToken === null ? {} : { pageToken }) };
    const page = await adminRequest<LiveSessionsPage>('GET', '/api/v2/sessions', { query });
    return { items: page.sessions, next: page.paging.next };
  });

/** Ends one login session: the browser is signed out; the apps it signed in to keep their grants. */
export const useRevokeLiveSession = () =>
  useApiMutation(
    (session: Pick<LiveSession, 'userId' | 'sessionId'>) =>
      call(api.DELETE('/api/v2/users/{userId}/sessions/{sessionId}', { params: { path: { userId: session.userId, sessionId: session.sessionId } } })),
    (queryClient) => queryClient.invalidateQueries({ queryKey: sessionKeys.all }),
  );
