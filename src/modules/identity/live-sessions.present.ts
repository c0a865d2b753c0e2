import { type Static, Type } from '@sinclair/typebox';
import { LoginSessionRecord, presentSession } from './credentials.present.js';
import type { LiveSessionRow } from './live-sessions.store.js';

/**
 * A live login session as the list of every user's sessions shows it: whose, and its times. A session
 * row keeps no address, device or browser, so none is shown; never the cookie or its hash.
 */
export const LiveSessionRecord = Type.Object(
  {
    ...LoginSessionRecord.properties,
    sessionId: Type.String({ description: 'The id to revoke it by (DELETE /api/v2/users/{userId}/sessions/{sessionId})' }),
    userId: Type.String({ description: 'The user it signs in' }),
    displayName: Type.String({ description: "The user's display name ('' when the user has none)" }),
  },
  {
    description: "A live login session: a browser's sign-in at the sign-in pages",
    examples: [
      {
        sessionId: '67d3f5a5e4b0a1c2d3e4f560',
        userId: 'alice',
        displayName: 'Alice Martin',
        createdAt: '2025-03-10T08:12:00.000Z',
        lastSeenAt: '2025-03-11T09:40:00.000Z',
        expiresAt: '2025-03-17T08:12:00.000Z',
      },
    ],
  },
);
export type LiveSessionRecord = Static<typeof LiveSessionRecord>;

export function presentLiveSession(row: LiveSessionRow): LiveSessionRecord {
  return { ...presentSession(row), userId: row.user_id, displayName: row.display_name ?? '' };
}
