/** Messages and what hangs on them: tags, reactions, flags, the moderation rules that judge their texts, and bot webhook deliveries. */

export interface MessagesTable {
  /** An ObjectId-like id (storage/ids.ts). */
  id: string;
  channel_id: string;
  /** 1-based sequence number inside the channel, with no gaps: the record's channelSegment. */
  segment: number;
  user_id: string;
  /** 'text' | 'custom' | 'image' | 'file' */
  type: string;
  /** JSON object; '{}' once deleted */
  data: string;
  /** JSON array, kept for presenting; message_tags is what queries filter on. */
  tags: string;
  parent_id: string | null;
  /** Live (not deleted) comments of this message. */
  children_number: number;
  is_deleted: number;
  file_id: string | null;
  /** JSON describing the blobs of an image or file message; kept after delete until they are removed. */
  media: string | null;
  flag_count: number;
  /** JSON object {reactionName: count} */
  reactions: string;
  reactions_count: number;
  edited_at: number | null;
  created_at: number;
  updated_at: number;
  /** The topic inside the channel (the bot API's `tid`); null for the channel's main topic. */
  topic_id: string | null;
}

export interface MessageTagsTable {
  message_id: string;
  tag: string;
}

/** One user's reaction of one name on one message (migration 0008). */
export interface MessageReactionsTable {
  id: string;
  message_id: string;
  user_id: string;
  reaction_name: string;
  created_at: number;
}

/** How many reactions of one name a message has; the row goes at zero. */
export interface MessageReactionCountsTable {
  message_id: string;
  reaction_name: string;
  reaction_count: number;
}

/** One flag per (message, flagger). */
export interface MessageFlagsTable {
  message_id: string;
  flagger_id: string;
  created_at: number;
  /** What the flagger wrote (trimmed, 1-500 characters); null when they wrote nothing (migration 0019). */
  reason: string | null;
}

/**
 * One review of a flagged message or user from the moderation queue (migration 0019). The review
 * deletes the target's flags; `flags` keeps them as they were.
 */
export interface ModerationReviewsTable {
  /** The reviewId, ObjectId-like. */
  id: string;
  /** 'message' | 'user' */
  target_type: string;
  /** The message id or the user id. */
  target_id: string;
  /** The message's channel; null for a user. */
  channel_id: string | null;
  /** 'dismiss' | 'delete' (messages) | 'globalBan' (users) */
  decision: string;
  /** What was done to the author (or to the flagged user): null | 'mute' | 'ban' | 'globalBan'. */
  author_action: string | null;
  /** How long the action lasts; null: indefinitely. */
  author_action_minutes: number | null;
  note: string | null;
  /** 'adminToken' | 'user' */
  reviewer_kind: string;
  /** The admin token's id or the user id of the reviewer. */
  reviewer_id: string;
  /** JSON array [{userId, reason, createdAt}] of the flags the review cleared, newest first; createdAt in ms. */
  flags: string;
  /** The message's text when reviewed (null for users and messages without text). */
  message_text: string | null;
  /** The message's author (null for users). */
  message_user_id: string | null;
  created_at: number;
}

export interface ModerationRulesTable {
  /** The ruleId, ObjectId-like. */
  id: string;
  /** 'blacklist' | 'whitelist' */
  kind: string;
  /** The word or URL as the admin gave it (trimmed): the record's `regex`, a literal. */
  pattern: string;
  /** Canonical form, unique per kind: the case-folded word, or host + path of a URL. */
  pattern_key: string;
  is_match_exact_word: number;
  is_enabled: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  bot_user_id: string;
  /** The outbox id of the event: the delivery's idempotency key (X-Parley-Event-Id). */
  event_id: number;
  /** The exact JSON body sent on every attempt. */
  body: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  delivered_at: number | null;
  gave_up_at: number | null;
  created_at: number;
}

/**
 * A channel's message retention (migration 0018): its own period, overriding PARLEY_MESSAGE_RETENTION_DAYS,
 * and where the retention walk stands in the channel.
 */
export interface ChannelRetentionTable {
  channel_id: string;
  /** Messages older than this many days are deleted; 0 keeps them for ever; null: the deployment's period applies. */
  days: number | null;
  /** Every message of the channel with a segment up to this one is deleted. */
  cursor_segment: number;
  /** Changes of `days` that no walk has followed yet (0: none). */
  pending: number;
  updated_at: number;
}
