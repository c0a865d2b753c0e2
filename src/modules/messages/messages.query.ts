import { AppError, notFound } from '../../shared/errors.js';
import { canonicalList, filterFields, filtersOfPage, isStringList, type PageTokens, type Paging } from '../../shared/paging.js';
import type { Dialect, Executor } from '../../storage/database.js';
import type { UserRow } from '../users/users.types.js';
import { createMessageLookups } from './lookups.store.js';
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

/** A page token: the channel, the segment to continue from, the page size, the way, the filters. */
interface MessageCursor extends Record<string, unknown> {
  c: string;
  s: number;
  n: number;
  d: 'n' | 'p';
  f: string;
  q?: unknown;
}

/** The filters of a message query, in the canonical form its tokens carry. */
interface MessageFilters extends Record<string, unknown> {
  p: string | null;
  t: boolean;
  a: string[];
  x: string[];
  o: string | null;
}

const NO_MESSAGE_FILTERS: MessageFilters = { p: null, t: false, a: [], x: [], o: null };
const isMessageFilters = (value: unknown): value is MessageFilters => {
  const v = value as Partial<MessageFilters> | null;
  return (
    v !== null &&
    typeof v === 'object' &&
    (v.p === null || typeof v.p === 'string') &&
    typeof v.t === 'boolean' &&
    isStringList(v.a) &&
    isStringList(v.x) &&
    (v.o === null || typeof v.o === 'string')
  );
};

const isMessageCursor = (value: Record<string, unknown>): value is MessageCursor =>
  typeof value.c === 'string' && Number.isInteger(value.s) && Number.isInteger(value.n) && (value.d === 'n' || value.d === 'p') && typeof value.f === 'string';

/**
 * The message query of docs/contract.md, Records. Pages are keyset ranges of channelSegment on the
 * (channel_id, segment) index, so a page costs the same anywhere in a channel of any size:
 * `after` + `first` reads forwards from a segment, `before` + `last` backwards, neither gives the newest
 * `last` (default 20). Messages are answered oldest first. `next` continues towards newer messages,
 * `prev` towards older ones; a token carries the channel, so it cannot be replayed on another one.
 */
export function createMessageQuery(deps: { db: Executor; dialect: Dialect; pageTokens: PageTokens }) {
  const { pageTokens } = deps;
  const store = createMessagesStore(deps.db, deps.dialect);
  const lookups = createMessageLookups(deps.db);

  return async function query(input: MessageQueryInput): Promise<{ rows: MessageRow[]; authors: UserRow[]; paging: Paging }> {
    const channel = await lookups.channel(input.channelId);
    if (!channel) throw notFound('Channel');
    let { after, first, before, last } = input.options ?? {};
    const requested: MessageFilters = {
      p: input.parentId ?? null,
      t: input.filterByParentId === true,
      a: canonicalList(input.tags),
      x: canonicalList(input.excludeTags),
      o: input.topicId === undefined ? null : (input.topicId ?? ''),
    };
    const cursor = input.options?.token ? pageTokens.decode(input.options.token, isMessageCursor) : null;
    // A token continues its own query: sent alone it brings its filters, sent with others it is refused.
    const filters = filtersOfPage(requested, NO_MESSAGE_FILTERS, cursor, isMessageFilters);
    if (cursor) {
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
      parentId: filters.p,
      topLevelOnly: filters.t,
      anyTags: filters.a,
      excludeTags: filters.x,
      // o: null any topic, '' the main topic only, else that topic.
      topicId: filters.o === null ? undefined : filters.o === '' ? null : filters.o,
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
    const carried = filterFields(filters);
    const cursorOf = (d: 'n' | 'p', s: number) => pageTokens.encode({ c: input.channelId, s, n: size, d, ...carried });
    // No token towards an end the page already reached: segments run from 1 to the channel's last, so
    // a page holding either bound has nothing beyond it (a `before` page of the newest rows answered a
    // `next` whose page was empty).
    const newerExist = (segment: number) => segment < channel.last_segment;
    const olderExist = (segment: number) => segment > 1;
    const paging: Paging = ascending
      ? {
          next: tail && hasMore ? cursorOf('n', tail.segment) : null,
          prev: head && (after ?? 0) > 0 && olderExist(head.segment) ? cursorOf('p', head.segment) : null,
        }
      : {
          next: tail && before !== undefined && newerExist(tail.segment) ? cursorOf('n', tail.segment) : null,
          prev: head && hasMore ? cursorOf('p', head.segment) : null,
        };
    const authors = await lookups.users([...new Set(rows.map((row) => row.user_id))]);
    return { rows, authors, paging };
  };
}
