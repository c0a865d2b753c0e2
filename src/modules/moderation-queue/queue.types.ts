import type { ModerationReviewsTable } from '../../storage/schema.js';
import type { MessageRow } from '../messages/messages.present.js';
import type { UserRow } from '../users/users.types.js';
import type { AdminActor } from '../roles/admin-actor.js';

/** A review as stored. */
export type ReviewRow = ModerationReviewsTable;

export type TargetType = 'message' | 'user';
export type AuthorAction = 'mute' | 'ban' | 'globalBan';
export type MessageDecision = 'dismiss' | 'delete';
export type UserDecision = 'dismiss' | 'globalBan';

/** One flag as the queue shows it and a review keeps it (createdAt in ms). */
export interface FlagEntry {
  userId: string;
  reason: string | null;
  createdAt: number;
}

/** A flag with its flagger's display name, for the open queue. */
export interface NamedFlag extends FlagEntry {
  displayName: string;
}

/** A flagged message of the open queue, with what the presenter needs. */
export interface OpenMessage {
  row: MessageRow;
  channelDisplayName: string;
  author: UserRow | undefined;
  flagCount: number;
  flags: NamedFlag[];
  lastFlaggedAt: number;
}

/** A flagged user of the open queue. */
export interface OpenUser {
  user: UserRow;
  flagCount: number;
  flags: NamedFlag[];
  lastFlaggedAt: number;
}

/**
 * Who reviews: the admin API's actor (its permissions decide), and the user id the actions are made
 * as (the admin token's user, `admin-<name>`, or the person), which a deleted message's event names.
 */
export interface Reviewer {
  actor: AdminActor;
  userId: string;
}

export interface MessageReviewInput {
  decision: MessageDecision;
  author?: { action: AuthorAction; minutes?: number };
  note?: string;
}

export interface UserReviewInput {
  decision: UserDecision;
  minutes?: number;
  note?: string;
}

/** The counts the console polls. */
export interface QueueSummary {
  openMessages: number;
  openUsers: number;
  /** The newest open flag, ms; null when nothing is open. */
  latestFlagAt: number | null;
}
