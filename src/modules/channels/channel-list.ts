import type { ChannelScope } from './channels.policy.js';
import { canonicalList, filterFields, filtersOfPage, isStringList, type PageTokens, type Paging } from '../../shared/paging.js';
import type { ChannelCursor, ChannelsStore } from './channels.store.js';
import type { ChannelRow, MemberRow } from './channels.types.js';

export interface ChannelQueryInput {
  filter?: 'all' | 'member' | 'notMember';
  userId?: string;
  tags?: string[];
  excludeTags?: string[];
  options?: { skip?: number; limit?: number; token?: string };
}

export interface ChannelPage {
  rows: ChannelRow[];
  /** The row of the listed user (or the caller) in each channel of the page, by channel id. */
  members: Map<string, MemberRow>;
  paging: Paging;
}

/** A page token: the row to continue from, the way, the page size and the filters' key. */
interface CursorToken extends Record<string, unknown> {
  c: number;
  i: string;
  d: 'n' | 'p';
  n: number;
  f: string;
  q?: unknown;
}

/** The filters of a channel list, in the canonical form its tokens carry. */
interface ChannelFilters extends Record<string, unknown> {
  u: string | null;
  f: string;
  a: string[];
  x: string[];
}

const NO_CHANNEL_FILTERS: ChannelFilters = { u: null, f: 'all', a: [], x: [] };
const isChannelFilters = (value: unknown): value is ChannelFilters => {
  const v = value as Partial<ChannelFilters> | null;
  return (
    v !== null &&
    typeof v === 'object' &&
    (v.u === null || typeof v.u === 'string') &&
    (v.f === 'all' || v.f === 'member' || v.f === 'notMember') &&
    isStringList(v.a) &&
    isStringList(v.x)
  );
};

const isCursorToken = (value: Record<string, unknown>): value is CursorToken =>
  typeof value.c === 'number' &&
  typeof value.i === 'string' &&
  (value.d === 'n' || value.d === 'p') &&
  Number.isInteger(value.n) &&
  typeof value.f === 'string';

/** One page of the channel list, newest first, with the listed user's (or the caller's) memberships. */
export async function listChannels(
  store: ChannelsStore,
  pageTokens: PageTokens,
  actor: { userId: string },
  input: ChannelQueryInput,
  scope: ChannelScope,
): Promise<ChannelPage> {
  let limit = input.options?.limit ?? 10;
  let after: ChannelCursor | null = null;
  let before: ChannelCursor | null = null;
  const requested: ChannelFilters = { u: input.userId ?? null, f: input.filter ?? 'all', a: canonicalList(input.tags), x: canonicalList(input.excludeTags) };
  const token = input.options?.token ? pageTokens.decode(input.options.token, isCursorToken) : null;
  // A token continues its own list: sent alone it brings its filters, sent with others it is refused.
  const filters = filtersOfPage(requested, NO_CHANNEL_FILTERS, token, isChannelFilters);
  if (token) {
    // The page size goes on as it was, unless the request names one.
    limit = input.options?.limit ?? token.n;
    const cursor = { createdAt: token.c, id: token.i };
    if (token.d === 'n') after = cursor;
    else before = cursor;
  }
  const filter = filters.f;
  // `userId`: that user's channels; `filter`: relative to the calling admin. Both may apply at once.
  const membershipConditions = [
    ...(filters.u ? [{ userId: filters.u, isMember: true }] : []),
    ...(filter === 'all' ? [] : [{ userId: actor.userId, isMember: filter === 'member' }]),
  ];
  const skip = input.options?.skip ?? 0;
  const fetched = await store.listPage({ memberships: membershipConditions, anyTags: filters.a, excludeTags: filters.x, scope, limit, skip, after, before });
  const hasMore = fetched.length > limit;
  // Going backwards, the extra row is the oldest-first list's head; forwards, its tail.
  const rows = before ? fetched.slice(hasMore ? 1 : 0) : fetched.slice(0, limit);
  const carried = filterFields(filters);
  const cursorOf = (row: ChannelRow, d: 'n' | 'p') => pageTokens.encode({ c: row.created_at, i: row.id, d, n: limit, ...carried });
  const first = rows[0];
  const last = rows[rows.length - 1];
  const paging: Paging = {
    next: last && (before !== null || hasMore) ? cursorOf(last, 'n') : null,
    prev: first && (before !== null ? hasMore : after !== null || skip > 0) ? cursorOf(first, 'p') : null,
  };
  const memberships = await store.findMembershipsOf(
    filters.u ?? actor.userId,
    rows.map((row) => row.id),
  );
  return { rows, members: new Map(memberships.map((row) => [row.channel_id, row])), paging };
}
