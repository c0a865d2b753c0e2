import { type DomainEvent, type JsonText, serialized } from '../../events/catalogue.js';
import type { UserRow } from '../users/users.types.js';
import { type MessageRecord, type MessageRow, presentCreatedMessageJson } from './messages.present.js';
import { type PosterRefusal, posterRefusal } from './send-rules.js';

/**
 * The rules of message creation, as pure functions of what the write transaction read: which drafts
 * may be written, the segments they take, the rows, tags, counters and activity they change, and the
 * events they append. Both writers apply them (messages.sqlite.ts on SQLite's connection,
 * messages.postgres.ts on PostgreSQL), each doing only its own reads and writes.
 */

/** A message ready to be written; only its channel segment is still to be chosen. */
export interface MessageDraft {
  id: string;
  channelId: string;
  userId: string;
  type: string;
  /** JSON object */
  data: string;
  tags: string[];
  parentId: string | null;
  fileId: string | null;
  /** JSON of MessageMedia, or null */
  media: string | null;
  /** The topic inside the channel; null for the main topic. */
  topicId: string | null;
  createdAt: number;
  /** Posted through a member surface (client or bot API): the send rules are checked under the channel lock. */
  asMember: boolean;
}

export type CreateFailure = 'channelNotFound' | 'channelClosed' | 'parentNotFound' | PosterRefusal;

/** The message.created event: the presented record as JSON text (reused for the HTTP answer). */
export type MessageCreatedEvent = DomainEvent<'message.created'> & { json: JsonText<MessageRecord> };

export type CreateOutcome = { row: MessageRow; author: UserRow | undefined; event: MessageCreatedEvent } | { failure: CreateFailure };

/** Writes a batch of drafts in one transaction; answers one outcome per draft, in order. */
export interface MessageWriter {
  insertBatch(drafts: MessageDraft[]): Promise<CreateOutcome[]>;
}

export const MESSAGE_CREATED = 'message.created';

/** A channel as the rules need it, read inside the write transaction (on PostgreSQL, under its row lock). */
export interface ChannelState {
  closed: boolean;
  muteUntil: number | null;
  /** The channel's last segment before this batch. */
  lastSegment: number;
}

export interface MembershipState {
  membership: string;
  mute_until: number | null;
}

/** What the rules read, each writer answering from its own reads inside the write transaction. */
export interface CreateReads {
  channel(channelId: string): ChannelState | undefined;
  membership(channelId: string, userId: string): MembershipState | undefined;
  /** Whether the message exists in this channel and is not deleted. */
  isLiveParent(parentId: string, channelId: string): boolean;
}

/** What a batch changes in one channel: its segment counter, message count and last activity. */
export interface ChannelTally {
  lastSegment: number;
  added: number;
  lastActivity: number;
}

/** An author's activity in a channel: their latest message's time and segment (their read marker moves up to it). */
export interface AuthorActivity {
  channelId: string;
  userId: string;
  at: number;
  segment: number;
}

/** A draft that passed: its row and its event. */
export interface WrittenMessage {
  row: MessageRow;
  event: MessageCreatedEvent;
}

export type PlannedOutcome = WrittenMessage | { failure: CreateFailure };

/** Everything a batch writes, as decided by planCreates. */
export interface CreatePlan {
  /** One per draft, in order. */
  outcomes: PlannedOutcome[];
  /** The messages to insert, in the drafts' order. */
  written: WrittenMessage[];
  tags: Array<{ messageId: string; tag: string }>;
  /** By channel id: only channels that take messages. */
  channels: Map<string, ChannelTally>;
  /** By parent id: how many comments it gains. */
  parents: Map<string, number>;
  /** By memberKey. */
  authors: Map<string, AuthorActivity>;
}

/** One key per (channel, user) pair, for maps of memberships and of authors' activity. */
export function memberKey(channelId: string, userId: string): string {
  return `${channelId}\u0000${userId}`;
}

/**
 * Whether a draft has checks beyond its channel's state: posted through a member surface (the send
 * rules read its membership) or a comment (its parent must be live). A batch with none of these can
 * take its segments before anything else is read (messages.postgres.ts).
 */
export function needsDraftChecks(draft: MessageDraft): boolean {
  return draft.asMember || draft.parentId !== null;
}

/**
 * Why a draft may not be written, or null: the channel exists and is open, a member send passes the
 * send rules as the rows are now (a ban, mute or removal committed since the route's check is seen),
 * a parent is a live message of the same channel.
 */
export function refusalOf(draft: MessageDraft, channel: ChannelState | undefined, reads: CreateReads): CreateFailure | null {
  if (channel === undefined) return 'channelNotFound';
  if (channel.closed) return 'channelClosed';
  if (draft.asMember) {
    const refusal = posterRefusal({ mute_until: channel.muteUntil }, reads.membership(draft.channelId, draft.userId), draft.createdAt);
    if (refusal !== null) return refusal;
  }
  if (draft.parentId !== null && !reads.isLiveParent(draft.parentId, draft.channelId)) return 'parentNotFound';
  return null;
}

/** The new message row; every message starts with these counters. */
export function rowOf(draft: MessageDraft, segment: number): MessageRow {
  return {
    id: draft.id,
    channel_id: draft.channelId,
    segment,
    user_id: draft.userId,
    type: draft.type,
    data: draft.data,
    tags: JSON.stringify(draft.tags),
    parent_id: draft.parentId,
    children_number: 0,
    is_deleted: 0,
    file_id: draft.fileId,
    media: draft.media,
    flag_count: 0,
    reactions: '{}',
    reactions_count: 0,
    edited_at: null,
    created_at: draft.createdAt,
    updated_at: draft.createdAt,
    topic_id: draft.topicId,
  };
}

/** The event of a created message; its JSON is the record the create answers with. */
export function messageCreatedEvent(row: MessageRow): MessageCreatedEvent {
  return { type: MESSAGE_CREATED, channelId: row.channel_id, userId: row.user_id, json: serialized<MessageRecord>(presentCreatedMessageJson(row)) };
}

/**
 * Decides a batch: each draft is refused or takes the next segment of its channel, in arrival order,
 * so a refused draft leaves no gap. Counters are summed per channel, parent and author, to be written
 * once each. Channels are read once each, in the order the drafts name them.
 */
export function planCreates(drafts: readonly MessageDraft[], reads: CreateReads): CreatePlan {
  const plan: CreatePlan = { outcomes: [], written: [], tags: [], channels: new Map(), parents: new Map(), authors: new Map() };
  const states = new Map<string, ChannelState | undefined>();
  for (const draft of drafts) {
    let channel = states.get(draft.channelId);
    if (channel === undefined && !states.has(draft.channelId)) {
      channel = reads.channel(draft.channelId);
      states.set(draft.channelId, channel);
    }
    const failure = refusalOf(draft, channel, reads);
    if (failure !== null || channel === undefined) {
      plan.outcomes.push({ failure: failure ?? 'channelNotFound' });
      continue;
    }
    const row = rowOf(draft, takeSegment(plan.channels, draft, channel));
    const written = { row, event: messageCreatedEvent(row) };
    plan.outcomes.push(written);
    plan.written.push(written);
    for (const tag of draft.tags) plan.tags.push({ messageId: row.id, tag });
    if (draft.parentId !== null) plan.parents.set(draft.parentId, (plan.parents.get(draft.parentId) ?? 0) + 1);
    noteActivity(plan.authors, row);
  }
  return plan;
}

function takeSegment(channels: Map<string, ChannelTally>, draft: MessageDraft, channel: ChannelState): number {
  let tally = channels.get(draft.channelId);
  if (tally === undefined) {
    tally = { lastSegment: channel.lastSegment, added: 0, lastActivity: draft.createdAt };
    channels.set(draft.channelId, tally);
  }
  tally.lastSegment += 1;
  tally.added += 1;
  tally.lastActivity = Math.max(tally.lastActivity, draft.createdAt);
  return tally.lastSegment;
}

/** Never backwards: instances whose clocks differ a little write in any order. */
function noteActivity(authors: Map<string, AuthorActivity>, row: MessageRow): void {
  const key = memberKey(row.channel_id, row.user_id);
  const known = authors.get(key);
  if (known === undefined) authors.set(key, { channelId: row.channel_id, userId: row.user_id, at: row.created_at, segment: row.segment });
  else {
    known.at = Math.max(known.at, row.created_at);
    known.segment = Math.max(known.segment, row.segment);
  }
}

/** The writers' answer: each planned row with its author as the transaction read them. */
export function outcomesOf(plan: CreatePlan, authorOf: (userId: string) => UserRow | undefined): CreateOutcome[] {
  return plan.outcomes.map((outcome) => ('failure' in outcome ? outcome : { row: outcome.row, author: authorOf(outcome.row.user_id), event: outcome.event }));
}
