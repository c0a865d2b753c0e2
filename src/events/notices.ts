import { randomUUID } from 'node:crypto';
import type { EventBus } from './bus.js';

/**
 * Notices: cross-module reactions that need no durable record (the outbox holds what must not be lost).
 * A notice runs this instance's handlers at once, and reaches the other instances through the bus.
 */
export type Notice =
  | { type: 'user.globalBanChanged'; userId: string; banned: boolean }
  /**
   * Access tokens of the user were revoked (one, a grant's, or all of them): every instance ends the
   * user's streams opened with a token that no longer authorizes (realtime.gateway.ts). The notice
   * names the user only; which of their streams end is read from the tokens, after the commit.
   */
  | { type: 'user.tokensRevoked'; userId: string }
  /** Admin tokens were revoked: every instance forgets the admin tokens it cached (tokens.service.ts). */
  | { type: 'adminToken.revoked'; tokenIds: string[] }
  /** An OAuth client was deleted: every instance forgets it, so a bot's deleted client gets no more tokens. */
  | { type: 'oauthClient.deleted'; clientId: string };

export type NoticeType = Notice['type'];
type Handler<T extends NoticeType> = (notice: Extract<Notice, { type: T }>) => void;

export interface Notices {
  publish(notice: Notice): void;
  on<T extends NoticeType>(type: T, handler: Handler<T>): void;
}

const TOPIC = 'notices';

export async function createNotices(bus: EventBus, onError: (error: unknown) => void): Promise<Notices> {
  // Each instance hears its own bus messages too; its handlers already ran when it published.
  const origin = randomUUID();
  const handlers = new Map<NoticeType, Array<(notice: Notice) => void>>();
  const run = (notice: Notice): void => {
    for (const handler of handlers.get(notice.type) ?? []) {
      try {
        handler(notice);
      } catch (error) {
        onError(error);
      }
    }
  };
  await bus.subscribe(TOPIC, (message) => {
    const parsed = parseNotice(message);
    if (parsed && parsed.origin !== origin) run(parsed.notice);
  });
  return {
    publish(notice) {
      run(notice);
      bus.publish(TOPIC, JSON.stringify({ origin, notice })).catch(onError);
    },
    on(type, handler) {
      const list = handlers.get(type) ?? [];
      list.push(handler as (notice: Notice) => void);
      handlers.set(type, list);
    },
  };
}

function parseNotice(message: string): { origin: string; notice: Notice } | null {
  try {
    const value = JSON.parse(message) as {
      origin?: unknown;
      notice?: { type?: unknown; userId?: unknown; banned?: unknown; tokenIds?: unknown; clientId?: unknown };
    };
    const notice = value.notice;
    if (typeof value.origin !== 'string' || !notice) return null;
    if (notice.type === 'user.globalBanChanged' && typeof notice.userId === 'string' && typeof notice.banned === 'boolean') {
      return { origin: value.origin, notice: { type: notice.type, userId: notice.userId, banned: notice.banned } };
    }
    if (notice.type === 'user.tokensRevoked' && typeof notice.userId === 'string') {
      return { origin: value.origin, notice: { type: notice.type, userId: notice.userId } };
    }
    if (notice.type === 'adminToken.revoked' && Array.isArray(notice.tokenIds) && notice.tokenIds.every((id) => typeof id === 'string')) {
      return { origin: value.origin, notice: { type: notice.type, tokenIds: notice.tokenIds as string[] } };
    }
    if (notice.type === 'oauthClient.deleted' && typeof notice.clientId === 'string') {
      return { origin: value.origin, notice: { type: notice.type, clientId: notice.clientId } };
    }
    return null;
  } catch {
    return null;
  }
}
