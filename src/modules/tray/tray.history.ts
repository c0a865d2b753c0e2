/**
 * A user's notification history: their own records merged with the records of the communities they
 * belonged to, each community record clipped to the reader's membership stints.
 */

import type { MembershipInterval } from '../social/social.types.js';
import { ownerKeyOfCommunity, ownerKeyOfUser } from './tray.aggregator.js';
import type { CandidateRow, HistoryReads, PageRecordRow, TrayRecordRow } from './tray.store.js';

/** Records are kept 90 days from lastUpdate (docs/contract.md, Limits). */
export const TRAY_RETENTION_MS = 90 * 24 * 3600 * 1000;
export const TRAY_PAGE_SIZE = 10;
/** The first time slice a history read scans for community records; later slices are 3x wider. */
const FIRST_SLICE_MS = 10 * 24 * 3600 * 1000;

export interface ViewActor {
  id: string;
  name: string;
  avatarId: string | null;
}

/** One record as one reader sees it. */
export interface RecordView {
  record: TrayRecordRow;
  lastUpdate: number;
  /** Latest first, at most 3. */
  actors: ViewActor[];
  actorsCount: number;
  hasRead: boolean;
}

export interface HistoryPage {
  views: RecordView[];
  lastRecordDate: number | null;
  lastReadDate: number | null;
}

/** Membership stints, as the social module keeps them. */
export type IntervalsOf = (userId: string, since: number) => Promise<MembershipInterval[]>;

/** Everything a history page reads: the tray's reads and the reader's stints. */
export type Reads = HistoryReads & { intervalsOf(userId: string, since: number): Promise<MembershipInterval[]> | MembershipInterval[] };

const inside = (at: number, interval: MembershipInterval): boolean => interval.joinedAt < at && (interval.leftAt === null || at < interval.leftAt);

/** How one community record stands for one reader, before it is loaded in full. */
type Placement =
  /** The reader's lastUpdate is known: the record's own, or prev_update when the reader is the latest actor. */
  | { kind: 'exact'; row: CandidateRow; lastUpdate: number }
  /** The reader's membership covers only part of the window: lastUpdate is at most `bound`. */
  | { kind: 'partial'; row: CandidateRow; bound: number }
  /** Computed from the contributions inside the reader's stints. */
  | { kind: 'computed'; row: CandidateRow; lastUpdate: number; actors: ViewActor[]; actorsCount: number };

const sortKey = (placement: Placement): number => (placement.kind === 'partial' ? placement.bound : placement.lastUpdate);

/** Places a community record for a reader, or null when none of it falls inside their stints. */
export function place(row: CandidateRow, readerId: string, stints: readonly MembershipInterval[]): Placement | null {
  const overlaps = stints.some((s) => s.joinedAt < row.last_update && (s.leftAt === null || s.leftAt > row.window_start));
  if (!overlaps) return null;
  const covers = stints.some((s) => s.joinedAt < row.window_start && (s.leftAt === null || s.leftAt > row.last_update));
  if (!covers) return { kind: 'partial', row, bound: row.last_update };
  if (row.top_actor_id !== readerId) return { kind: 'exact', row, lastUpdate: row.last_update };
  // The reader posted last: what they see ends at the previous actor's post (their own never notifies them).
  return row.prev_update === null ? null : { kind: 'exact', row, lastUpdate: row.prev_update };
}

/** The part of a record inside the reader's stints, without the reader's own posts. */
async function computePartial(reads: Reads, row: CandidateRow, readerId: string, stints: readonly MembershipInterval[]): Promise<Placement | null> {
  const seen = new Map<string, ViewActor>();
  let lastUpdate: number | null = null;
  for (const contribution of await reads.contributionsOf(row.id)) {
    if (contribution.actor_id === readerId || !stints.some((stint) => inside(contribution.at, stint))) continue;
    lastUpdate ??= contribution.at;
    if (!seen.has(contribution.actor_id))
      seen.set(contribution.actor_id, { id: contribution.actor_id, name: contribution.name, avatarId: contribution.avatar_id });
  }
  if (lastUpdate === null) return null;
  return { kind: 'computed', row, lastUpdate, actors: [...seen.values()].slice(0, 3), actorsCount: seen.size };
}

/**
 * The reader's community records below `before`, newest first, exact for the first `want`.
 *
 * A reader sees a record at its last_update or earlier (prev_update when they posted last, or a
 * partial view), so candidates are read newest last_update first and reading stops once no unread
 * one could beat the page: a batch at a time, within time slices that widen (10, 30, then 90 days
 * back), so a member of many active communities reads a few dozen rows rather than every record of
 * the retention period (building row objects is what cost, not finding them).
 */
async function communityPage(
  reads: Reads,
  readerId: string,
  stints: readonly MembershipInterval[],
  before: number,
  notBefore: number,
  want: number,
): Promise<Placement[]> {
  const byCommunity = new Map<string, MembershipInterval[]>();
  for (const stint of stints) {
    const list = byCommunity.get(stint.communityId);
    if (list) list.push(stint);
    else byCommunity.set(stint.communityId, [stint]);
  }
  if (byCommunity.size === 0) return [];
  const ownerKeys = [...byCommunity.keys()].map(ownerKeyOfCommunity);
  const newest = Math.min(before, notBefore + TRAY_RETENTION_MS);
  let span = FIRST_SLICE_MS;
  let from = Math.max(notBefore, newest - span);
  let after: { lastUpdate: number; id: number | null } | null = null;
  // One more than the page: in the common case (no partial stint, the reader not the latest poster) one read settles it.
  let limit = want + 1;
  let placed: Placement[] = [];
  for (;;) {
    const rows = await reads.candidates(ownerKeys, { before, from, after, limit });
    for (const row of rows) {
      const placement = place(row, readerId, byCommunity.get(row.community_id ?? '') ?? []);
      if (placement && (placement.kind === 'partial' || (placement.lastUpdate < before && placement.lastUpdate >= notBefore))) placed.push(placement);
    }
    // The highest last_update an unread candidate can have (null: none is left).
    let ceiling: number | null;
    const last = rows[rows.length - 1];
    if (rows.length >= limit && last !== undefined) {
      ceiling = last.last_update;
      after = { lastUpdate: last.last_update, id: last.id };
      limit = Math.min(limit * 2, 1000);
    } else if (from > notBefore) {
      ceiling = from - 1;
      after = { lastUpdate: from, id: null };
      span *= 3;
      from = Math.max(notBefore, newest - span);
    } else {
      ceiling = null;
    }
    // Partial records are rare (a stint began or ended inside their window): resolve them only
    // while one could still reach the page.
    for (;;) {
      placed.sort((x, y) => sortKey(y) - sortKey(x));
      const pending = placed.slice(0, want).find((placement) => placement.kind === 'partial');
      if (!pending) break;
      const computed = await computePartial(reads, pending.row, readerId, byCommunity.get(pending.row.community_id ?? '') ?? []);
      placed = placed.filter((placement) => placement !== pending);
      if (computed && computed.kind === 'computed' && computed.lastUpdate < before && computed.lastUpdate >= notBefore) placed.push(computed);
    }
    const page = placed.slice(0, want);
    const lowest = page[want - 1];
    if (ceiling === null || (lowest !== undefined && sortKey(lowest) > ceiling)) return page;
  }
}

/** Shapes the chosen community records (loaded in full in `rows`) for this reader. */
async function viewsOfCommunityRecords(
  reads: Reads,
  readerId: string,
  placements: Placement[],
  rows: ReadonlyMap<number, PageRecordRow>,
): Promise<Map<number, Omit<RecordView, 'hasRead'>>> {
  const out = new Map<number, Omit<RecordView, 'hasRead'>>();
  for (const placement of placements) {
    const record = rows.get(placement.row.id);
    if (!record) continue; // purged or emptied meanwhile
    if (placement.kind === 'computed') {
      out.set(record.id, { record, lastUpdate: placement.lastUpdate, actors: placement.actors, actorsCount: placement.actorsCount });
    } else if (record.readerActed) {
      const others = await reads.topActors(record.id, 3, readerId);
      if (others.length === 0) continue;
      const actors = others.map((actor) => ({ id: actor.actor_id, name: actor.name, avatarId: actor.avatar_id }));
      out.set(record.id, { record, lastUpdate: others[0]?.last_at ?? record.last_update, actors, actorsCount: record.actors_count - 1 });
    } else {
      out.set(record.id, { ...globalView(record), lastUpdate: sortKey(placement) });
    }
  }
  return out;
}

function globalView(record: TrayRecordRow): Omit<RecordView, 'hasRead'> {
  const names = parseActors(record.actors);
  const actors = names.map((actor, index) => ({ ...actor, avatarId: index === 0 ? record.image_avatar_id : null }));
  return { record, lastUpdate: record.last_update, actors, actorsCount: record.actors_count };
}

/**
 * One page of a user's history at `now`: their own records (comments and likes on their posts) merged
 * with the records of the communities they belonged to, each clipped to their stints. Only reads:
 * nothing of the user's read state changes.
 */
export async function readHistory(
  reads: Reads,
  userId: string,
  searchAfter: number | undefined,
  now: number,
  pageSize: number = TRAY_PAGE_SIZE,
): Promise<HistoryPage> {
  const notBefore = now - TRAY_RETENTION_MS;
  const before = searchAfter ?? Number.MAX_SAFE_INTEGER;
  const want = pageSize + 1;
  const [stints, own, lastReadDate] = await Promise.all([
    reads.intervalsOf(userId, notBefore),
    reads.ownerPage(ownerKeyOfUser(userId), before, notBefore, want),
    reads.lastReadOf(userId),
  ]);
  const community = await communityPage(reads, userId, stints, before, notBefore, want);
  const merged: Array<{ lastUpdate: number; ownId?: number; placement?: Placement }> = [
    ...own.map((row) => ({ lastUpdate: row.last_update, ownId: row.id })),
    ...community.map((placement) => ({ lastUpdate: sortKey(placement), placement })),
  ]
    .sort((a, b) => b.lastUpdate - a.lastUpdate)
    .slice(0, want);
  // Only the records that reach the page are loaded in full, own and community ones in one read.
  const ids = merged.flatMap((entry) => (entry.ownId !== undefined ? [entry.ownId] : entry.placement ? [entry.placement.row.id] : []));
  const rows = new Map((await reads.pageRecords(userId, ids)).map((row) => [row.id, row]));
  const chosen = merged.flatMap((entry) => (entry.placement ? [entry.placement] : []));
  const communityViews = await viewsOfCommunityRecords(reads, userId, chosen, rows);
  const views: Array<Omit<RecordView, 'hasRead'>> = [];
  for (const entry of merged) {
    const ownRow = entry.ownId === undefined ? undefined : rows.get(entry.ownId);
    const view = ownRow ? globalView(ownRow) : entry.placement ? communityViews.get(entry.placement.row.id) : undefined;
    if (view) views.push(view);
  }
  const page = views.slice(0, pageSize);
  const last = page[page.length - 1];
  return {
    views: page.map((view) => ({ ...view, hasRead: (rows.get(view.record.id)?.readUpto ?? -1) >= view.lastUpdate })),
    lastRecordDate: views.length > pageSize && last ? last.lastUpdate : null,
    lastReadDate,
  };
}

function parseActors(text: string): Array<{ id: string; name: string }> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: unknown) => {
      if (typeof item !== 'object' || item === null) return [];
      const { id, name } = item as Record<string, unknown>;
      return typeof id === 'string' && typeof name === 'string' ? [{ id, name }] : [];
    });
  } catch {
    return [];
  }
}
