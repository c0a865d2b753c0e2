import { AppError, notFound } from '../../http/errors.js';
import type { PageTokens, Paging } from '../../http/paging.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { createChannelsStore } from '../channels/channels.store.js';
import { createUsersStore, type UserRow } from '../users/users.store.js';
import type { MessageRow } from './messages.present.js';
import { createMessagesStore } from './messages.store.js';

const DEFAULT_PAGE_SIZE = 20;

export interface MessageQueryInput {
  channelId: string;
  parentId?: string;
  filterByParentId?: boolean;
  tags?: string[];
  excludeTags?: string[];
  /** undefined: every topic; null: the main topic only; a string: that topic only. */
  topicId?: string | null | undefined;
  options?: { after?: number; first?: number; before?: number; last?: number; token?: string };
}

/** A page token: the channel it belongs to, the segment to continue from, the page size, the way. */
interface MessageCursor extends Record<string, unknown> {
  c: string;
  s: number;
  n: number;
  d: 'n' | 'p';
}

const isMessageCursor = (value: Record<string, unknown>): value is MessageCursor =>
  typeof value.c === 'string' && Number.isInteger(value.s) && Number.isInteger(value.n) && (value.d === 'n' || value.d === 'p');

/**
 * The message query of API-CONVENTIONS.md section 3. Pages are keyset ranges of channelSegment on the
 * (channel_id, segment) index, so a page costs the same anywhere in a channel of any size:
 * `after` + `first` reads forwards from a segment, `before` + `last` backwards, neither gives the newest
 * `last` (default 20). Messages are answered oldest first. `next` continues towards newer messages,
 * `prev` towards older ones; a token carries the channel, so it cannot be replayed on another one.
 */
export function createMessageQuery(deps: { db: Executor; dialect: Dialect; pageTokens: PageTokens }) {
  const { pageTokens } = deps;
  const store = createMessagesStore(deps.db, deps.dialect);
  const channels = createChannelsStore(deps.db, deps.dialect);
  const users = createUsersStore(deps.db);

  return async function query(input: MessageQueryInput): Promise<{ rows: MessageRow[]; authors: UserRow[]; paging: Paging }> {
    if (!(await channels.findById(input.channelId))) throw notFound('Channel');
    let { after, first, before, last } = input.options ?? {};
    if (input.options?.token) {
      const cursor = pageTokens.decode(input.options.token, isMessageCursor);
      if (cursor.c !== input.channelId) throw new AppError('badRequest', 'Query token is invalid.');
      [after, first, before, last] = cursor.d === 'n' ? [cursor.s, cursor.n, undefined, undefined] : [undefined, undefined, cursor.s, cursor.n];
    }
    if (first !== undefined && last !== undefined) {
      throw new AppError('parameters', 'options.first and options.last cannot be combined.', {
        detail: [{ field: 'body.options', message: 'give first (with after) or last (with before), not both' }],
      });
    }
    const ascending = first !== undefined || (last === undefined && after !== undefined && before === undefined);
    const size = (ascending ? first : last) ?? DEFAULT_PAGE_SIZE;
    const fetched = await store.listPage({
      channelId: input.channelId,
      parentId: input.parentId ?? null,
      topLevelOnly: input.filterByParentId === true,
      anyTags: input.tags ?? [],
      excludeTags: input.excludeTags ?? [],
      topicId: input.topicId,
      after: after ?? null,
      before: before ?? null,
      order: ascending ? 'asc' : 'desc',
      limit: size + 1,
    });
    const hasMore = fetched.length > size;
    const page = fetched.slice(0, size);
    const rows = ascending ? page : page.reverse();
    const head = rows[0];
    const tail = rows[rows.length - 1];
    const cursorOf = (d: 'n' | 'p', s: number) => pageTokens.encode({ c: input.channelId, s, n: size, d });
    const paging: Paging = ascending
      ? { next: tail && hasMore ? cursorOf('n', tail.segment) : null, prev: head && (after ?? 0) > 0 ? cursorOf('p', head.segment) : null }
      : { next: tail && before !== undefined ? cursorOf('n', tail.segment) : null, prev: head && hasMore ? cursorOf('p', head.segment) : null };
    const authors = await users.findByIds([...new Set(rows.map((row) => row.user_id))]);
    return { rows, authors, paging };
  };
}
