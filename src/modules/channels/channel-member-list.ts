import { notFound } from '../../shared/errors.js';
import { filterKey, otherFiltersError, type PageTokens, type Paging } from '../../shared/paging.js';
import type { UserRow } from '../users/users.types.js';
import type { ChannelsStore } from './channels.store.js';
import type { MemberRow } from './channels.types.js';

export interface MemberListInput {
  limit?: number | undefined;
  pageToken?: string | undefined;
}

export interface MemberPage {
  /** Each row with its user (undefined when the account is gone), by user id. */
  rows: Array<{ member: MemberRow; user: UserRow | undefined }>;
  paging: Paging;
}

const DEFAULT_LIMIT = 25;

/** A page token of a member list: the user id to continue from, the way, the page size and the channel's key. */
interface MemberCursor extends Record<string, unknown> {
  i: string;
  d: 'n' | 'p';
  n: number;
  f: string;
}

const isMemberCursor = (value: Record<string, unknown>): value is MemberCursor =>
  typeof value.i === 'string' && (value.d === 'n' || value.d === 'p') && Number.isInteger(value.n) && typeof value.f === 'string';

/**
 * One page of a channel's rows, members and banned alike, ordered by user id (keyset: a page costs
 * the same deep in a large channel). A token continues the list of its own channel only.
 */
export async function listChannelMembers(store: ChannelsStore, pageTokens: PageTokens, channelId: string, input: MemberListInput): Promise<MemberPage> {
  if (!(await store.findById(channelId))) throw notFound('Channel');
  const key = filterKey({ c: channelId });
  const cursor = input.pageToken ? pageTokens.decode(input.pageToken, isMemberCursor) : null;
  if (cursor !== null && cursor.f !== key) throw otherFiltersError();
  const limit = input.limit ?? cursor?.n ?? DEFAULT_LIMIT;
  const backwards = cursor?.d === 'p';
  const fetched = await store.listMembersPage(channelId, {
    after: cursor !== null && !backwards ? cursor.i : null,
    before: backwards && cursor !== null ? cursor.i : null,
    limit,
  });
  const hasMore = fetched.length > limit;
  const members = backwards ? fetched.slice(hasMore ? 1 : 0) : fetched.slice(0, limit);
  const users = new Map((await store.findUsers(members.map((member) => member.user_id))).map((user) => [user.id, user]));
  const first = members[0];
  const last = members[members.length - 1];
  const tokenOf = (member: MemberRow, d: 'n' | 'p') => pageTokens.encode({ i: member.user_id, d, n: limit, f: key });
  return {
    rows: members.map((member) => ({ member, user: users.get(member.user_id) })),
    paging: {
      next: last && (backwards || hasMore) ? tokenOf(last, 'n') : null,
      prev: first && (backwards ? hasMore : cursor !== null) ? tokenOf(first, 'p') : null,
    },
  };
}
