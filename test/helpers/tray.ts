import type { LightMyRequestResponse } from 'fastify';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from './admin.js';
import type { TestApp } from './test-app.js';

type Method = 'GET' | 'POST' | 'DELETE';

export interface TrayRecordJson {
  description: string;
  networkId: string;
  userId: string;
  verb: string;
  targetId: string;
  targetGroup: string;
  targetType: string;
  imageUrl: string;
  hasRead: boolean;
  lastUpdate: number;
  actors: Array<{ id: string; name: string }>;
  actorsCount: number;
}

export interface HistoryJson {
  data: TrayRecordJson[];
  lastRecordDate: number | null;
  lastRead: { ch_uid: string; netid_uid: string; lastReadDate: number | null };
}

export interface EndUser {
  userId: string;
  name: string;
  token: string;
  call(method: Method, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse>;
  /** Calls and insists on 200, answering the JSON body. */
  ok<T = Record<string, unknown>>(method: Method, url: string, payload?: Record<string, unknown>): Promise<T>;
}

/**
 * Users, communities and the tray as an end-user app sees them, plus the test's hold on time: the
 * clock only moves forward (activity times never go backwards), and `settle` waits until the tray
 * consumer has taken every committed event.
 */
export function trayKit(t: TestApp) {
  const admin = adminClient(t);
  const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
  let offset = 0;

  async function user(prefix: string, displayName?: string): Promise<EndUser> {
    const userId = t.uniqueId(prefix);
    const name = displayName ?? `${prefix} ${userId.slice(-4)}`;
    await admin.createUser(userId, { displayName: name });
    const { token } = await tokens.issue({ kind: 'user', userId, expiresInMs: 365 * 24 * 3600_000 });
    const call = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return {
      userId,
      name,
      token,
      call,
      async ok<T>(method: Method, url: string, payload?: Record<string, unknown>): Promise<T> {
        const response = await call(method, url, payload);
        if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
        return response.json() as T;
      },
    };
  }

  /** GET /notifications/history; waits out the 5-per-second limit (Retry-After) when a test reads fast. */
  async function readHistory(reader: EndUser, searchAfter?: number): Promise<HistoryJson> {
    const url = `/notifications/history${searchAfter === undefined ? '' : `?searchAfter=${searchAfter}`}`;
    for (;;) {
      const response = await reader.call('GET', url);
      if (response.statusCode === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers['retry-after'] ?? 1) * 1000));
        continue;
      }
      if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`);
      return response.json() as HistoryJson;
    }
  }

  async function settle(): Promise<void> {
    await t.events.relay.flush();
    await t.events.consumers.drain();
  }

  return {
    admin,
    user,
    settle,
    /** Moves the clock forward by ms (never back). */
    advance(ms: number): void {
      offset += ms;
      t.clock.setOffset(offset);
    },
    async community(owner: EndUser, displayName: string, members: EndUser[] = []): Promise<string> {
      const communityId = t.uniqueId('comm');
      await owner.ok('POST', '/client/v1/communities', { communityId, displayName });
      for (const member of members) await member.ok('POST', `/client/v1/communities/${communityId}/join`);
      return communityId;
    },
    async post(author: EndUser, communityId: string | null, text = 'hello'): Promise<string> {
      const body = await author.ok<{ postId: string }>('POST', '/client/v1/posts', communityId ? { communityId, text } : { text });
      await settle();
      return body.postId;
    },
    async comment(author: EndUser, postId: string, text = 'nice', parentId?: string): Promise<string> {
      const body = await author.ok<{ commentId: string }>('POST', `/client/v1/posts/${postId}/comments`, parentId ? { text, parentId } : { text });
      await settle();
      return body.commentId;
    },
    async like(author: EndUser, postId: string, reactionName = 'like'): Promise<void> {
      await author.ok('POST', `/client/v1/posts/${postId}/reactions`, { reactionName });
      await settle();
    },
    async history(reader: EndUser, searchAfter?: number): Promise<HistoryJson> {
      await settle();
      return readHistory(reader, searchAfter);
    },
    /** Every page, following lastRecordDate. */
    async allHistory(reader: EndUser): Promise<TrayRecordJson[]> {
      await settle();
      const out: TrayRecordJson[] = [];
      let after: number | undefined;
      for (let page = 0; page < 100; page += 1) {
        const body = await readHistory(reader, after);
        out.push(...body.data);
        if (body.lastRecordDate === null) return out;
        after = body.lastRecordDate;
      }
      throw new Error('more than 100 pages');
    },
  };
}

export type TrayKit = ReturnType<typeof trayKit>;

export const DAY_MS = 24 * 3600 * 1000;
