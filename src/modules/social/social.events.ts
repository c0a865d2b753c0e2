import type { CommentRecord, PostReactionRecord, PostRecord } from './social.present.js';

/**
 * The domain events of communities, posts, comments and post reactions (their entries in the event
 * catalogue, events/catalogue.ts), as written to the outbox in the writing transaction. `at` is the
 * write's activity-clock time (unique, in commit order); actor names and avatars are as they were at
 * the event, which is what the tray must show.
 */
export const SOCIAL_EVENT_TYPES = [
  'post.created',
  'post.deleted',
  'comment.created',
  'comment.deleted',
  'post.reaction.added',
  'post.reaction.removed',
] as const;

export type SocialEventType = (typeof SOCIAL_EVENT_TYPES)[number];

export interface ActivityActor {
  id: string;
  /** users.display_name at the event (the user id when there is none). */
  name: string;
  /** users.avatar at the event. */
  avatarId: string | null;
}

export interface ActivityPost {
  postId: string;
  authorId: string;
  communityId: string | null;
  /** The community's display name at the event; null for a post on a user's feed. */
  communityName: string | null;
}

/** Every social event's data carries these; the type decides what `sourceId` names. */
export interface SocialEventData {
  at: number;
  actor: ActivityActor;
  post: ActivityPost;
  /** The post, comment or reaction id the event is about. */
  sourceId: string;
  /** Comments only: the comment replied to (replies feed no tray record). */
  parentId?: string | null;
  /** Reactions only. */
  reactionName?: string;
  /** The public record (post, comment or reaction) of a creation, for stream and webhook consumers. */
  record?: PostRecord | CommentRecord | PostReactionRecord;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Outbox payloads are JSON; check the shape before trusting it. */
export function isSocialEventData(value: unknown): value is SocialEventData {
  if (!isObject(value) || typeof value.at !== 'number' || !isString(value.sourceId)) return false;
  const { actor, post } = value;
  if (!isObject(actor) || !isString(actor.id) || !isString(actor.name) || !(actor.avatarId === null || isString(actor.avatarId))) return false;
  if (!isObject(post) || !isString(post.postId) || !isString(post.authorId)) return false;
  return (post.communityId === null || isString(post.communityId)) && (post.communityName === null || isString(post.communityName));
}
