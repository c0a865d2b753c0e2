import { type ChannelScope, shownIn } from '../channels/channels.policy.js';
import { notFound } from '../../shared/errors.js';
import { filterKey, otherFiltersError, type PageTokens } from '../../shared/paging.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { createMessageLookups } from './lookups.store.js';
import type { MessageRow } from './messages.present.js';
import { createMessagesStore } from './messages.store.js';

const DEFAULT_PAGE_SIZE = 20;

/**
 * The most messages one page walks past, whoever wrote them. No index leads from an author to their
 * messages (every message create would write into it), so a page reads this stretch of the table at
 * most: its cost is bounded per page, not per user.
 */
export const SCAN_BUDGET = 20_000;

export interface AuthoredMessagesInput {
  pageToken?: string | undefined;
  limit?: number | undefined;
}

export interface AuthoredMessagesPage {
  rows: MessageRow[];
  /** The display names of the rows' channels, by id. */
  channelNames: Map<string, string>;
  /** Continues the walk below the last message it examined; null once it reached the oldest message. */
  next: string | null;
  /** The time of the oldest message the walk examined (ms); null once it reached the oldest message. */
  scannedTo: number | null;
}

/** A page token: the last message examined (the walk goes on below it), the page size and the list's key. */
interface WalkCursor extends Record<string, unknown> {
  i: string;
  n: number;
  f: string;
}

const isWalkCursor = (value: Record<string, unknown>): value is WalkCursor =>
  typeof value.i === 'string' && Number.isInteger(value.n) && typeof value.f === 'string';

/**
 * Where a page's walk stopped: at the page's last row when the page is full, else at the walk's end
 * row (fromId), or nowhere (null) when the walk reached the oldest message.
 */
function walkStop(rows: MessageRow[], full: boolean, fromId: string | null, found: MessageRow[]): { id: string; at: number } | null {
  const last = rows[rows.length - 1];
  if (full && last) return { id: last.id, at: last.created_at };
  if (fromId === null) return null;
  // The end row is read in the second query: gone meanwhile (a channel removed), its id still tells its second.
  const end = found.find((row) => row.id === fromId);
  return { id: fromId, at: end?.created_at ?? Number.parseInt(fromId.slice(0, 8), 16) * 1000 };
}

/**
 * One user's messages across channels, newest first, deleted ones included (an administrator reads
 * what the user wrote and what became of it). Each page walks the messages table down its primary key
 * (ids begin with their creation second, so id order is time order) over at most `scanBudget` rows
 * below the token's position and keeps this user's, up to the page size. A page may so hold fewer
 * rows than asked, even none, and still carry a token: the walk ends only at the oldest message.
 * A token continues only its own user's list.
 */
export function createAuthoredMessages(deps: { db: Executor; dialect: Dialect; pageTokens: PageTokens; scanBudget?: number }) {
  const store = createMessagesStore(deps.db, deps.dialect);
  const lookups = createMessageLookups(deps.db);
  const budget = deps.scanBudget ?? SCAN_BUDGET;

  /** `scope` leaves out the messages of bots' conversations for readers who may not see them (channels.policy.ts). */
  return async function byAuthor(userId: string, input: AuthoredMessagesInput, scope: ChannelScope = 'all'): Promise<AuthoredMessagesPage> {
    if (!(await lookups.user(userId))) throw notFound('User');
    const key = filterKey({ authoredBy: userId });
    const cursor = input.pageToken ? deps.pageTokens.decode(input.pageToken, isWalkCursor) : null;
    if (cursor !== null && cursor.f !== key) throw otherFiltersError();
    const limit = input.limit ?? cursor?.n ?? DEFAULT_PAGE_SIZE;
    const beforeId = cursor?.i ?? null;

    const fromId = (await store.walkEnd(beforeId, budget)) ?? null;
    // One more than the page to tell a full page from the user's last rows, and the walk's end row.
    const found = await store.authoredInRange(userId, { beforeId, fromId }, limit + 2);
    const authored = found.filter((row) => row.user_id === userId);
    const page = authored.slice(0, limit);
    const stop = walkStop(page, authored.length > limit, fromId, found);
    const next = stop === null ? null : deps.pageTokens.encode({ i: stop.id, n: limit, f: key });
    const channels = await lookups.channelSummaries([...new Set(page.map((row) => row.channel_id))]);
    // Left out after the walk, so the token goes on from where the walk stopped either way.
    const rows = page.filter((row) => shownIn(scope, channels.get(row.channel_id)));
    const channelNames = new Map([...channels].map(([id, channel]) => [id, channel.name]));
    return { rows, channelNames, next, scannedTo: stop?.at ?? null };
  };
}
