import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { hashToken } from '../tokens/tokens.service.js';
import { createSessionsStore, type SessionRow } from './sessions.store.js';

export const SESSION_COOKIE = 'parley_session';
/** A sign-in lasts a week at most; max_age and prompt=login ask for a fresher one. */
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
/** How stale a session's last-seen time may get before a use writes it again: one write a minute at most. */
export const LAST_SEEN_GRANULARITY_MS = 60_000;

/**
 * Login sessions: the browser holds a random id in an HttpOnly cookie, the database only its
 * SHA-256, so a leaked database row cannot be replayed as a cookie.
 */
export function createLoginSessions(deps: { db: Executor; clock: Clock }) {
  const store = createSessionsStore(deps.db);
  return {
    async start(userId: string): Promise<{ cookieValue: string; session: SessionRow }> {
      const now = deps.clock.now();
      const cookieValue = randomBytes(32).toString('base64url');
      const session: SessionRow = {
        id_hash: hashToken(cookieValue),
        id: newObjectId(now),
        user_id: userId,
        auth_time: now,
        expires_at: now + SESSION_TTL_MS,
        revoked_at: null,
        created_at: now,
        last_seen_at: now,
      };
      await store.insertSession(session);
      return { cookieValue, session };
    },

    /** The live session a cookie names, or null (absent, unknown, ended or expired). */
    async current(cookieValue: string | undefined): Promise<SessionRow | null> {
      if (cookieValue === undefined || cookieValue.length === 0 || cookieValue.length > 100) return null;
      const idHash = hashToken(cookieValue);
      const session = await store.findSession(idHash);
      const now = deps.clock.now();
      if (!session || session.revoked_at !== null || session.expires_at <= now) return null;
      // Last seen, for the operator's list of the user's sessions.
      if (session.last_seen_at === null || now - session.last_seen_at >= LAST_SEEN_GRANULARITY_MS) {
        await store.touchSession(idHash, now);
        session.last_seen_at = now;
      }
      return session;
    },

    /** Signs out: deletes the session the cookie names, if any. */
    async end(cookieValue: string | undefined): Promise<void> {
      if (cookieValue === undefined || cookieValue.length === 0 || cookieValue.length > 100) return;
      await store.deleteSession(hashToken(cookieValue));
    },
  };
}

export type LoginSessions = ReturnType<typeof createLoginSessions>;
