import type { ChannelRecord } from '../modules/channels/channels.present.js';
import type { MessageRecord } from '../modules/messages/messages.present.js';
import type { ReactionEventRecord } from '../modules/reactions/reactions.present.js';
import type { SocialEventData, SocialEventType } from '../modules/social/social.events.js';

/**
 * Every event Parley appends to the outbox, by type, with its payload: the public JSON stored in the
 * outbox's payload column, which the stream sends as a frame's `data` and webhooks as `data`.
 * appendEvents takes only these, and a reader that tests `type` knows the payload's shape.
 */
export type EventPayloads = {
  /** A new message, as its record (docs/contract.md, Records). */
  'message.created': MessageRecord;
  /** A soft-deleted message, as its record after the delete (isDeleted, data emptied). */
  'message.deleted': MessageRecord;
  /** A channel's settings changed, or it closed (channel.isClosed). */
  'channel.updated': ChannelChange;
  'member.added': MembershipChange;
  /** Also one per slice of former members when a channel closes (channel.isClosed). */
  'member.removed': MembershipChange;
  'reaction.added': ReactionEventRecord;
  'reaction.removed': ReactionEventRecord;
  /** One of the recipient's tray records changed (docs/contract.md, Events); for that user only. */
  'tray.updated': TrayChange;
} & { [T in SocialEventType]: SocialEventData };

export type EventType = keyof EventPayloads;

export interface ChannelChange {
  channel: ChannelRecord;
}

/** Who joined or left, and the channel as it is after the change. */
export interface MembershipChange {
  channelId: string;
  userIds: string[];
  channel: ChannelRecord;
}

/** Names a tray record the way /notifications/read does. */
export interface TrayChange {
  verb: string;
  targetId: string;
  /** The record's window start, as a decimal string. */
  targetGroup: string;
}

/** Where an event goes: a channel's members, one recipient, or both. */
export interface EventAddress {
  /** The channel whose members may see it, when there is one. */
  channelId?: string | null;
  /** The acting user, when there is one. */
  userId?: string | null;
  /** The one user the event is for, when it is for one user only. */
  recipientId?: string | null;
}

declare const serializedFrom: unique symbol;

/** JSON text known to be the serialization of a T (see `serialized`). */
export type JsonText<T> = string & { readonly [serializedFrom]: T };

/**
 * Marks text as the JSON of a T. For presenters that write their JSON directly (the message create
 * path) rather than through JSON.stringify; the caller vouches that the text is what stringify gives.
 */
export function serialized<T>(text: string): JsonText<T> {
  return text as JsonText<T>;
}

/** The types whose presenter writes its JSON directly (the message create path, see `serialized`). */
type SerializedEventType = 'message.created';

interface EventWithData<K extends EventType> extends EventAddress {
  type: K;
  data: EventPayloads[K];
}

interface EventWithJson<K extends EventType> extends EventAddress {
  type: K;
  /** The payload already serialized: written as is. */
  json: JsonText<EventPayloads[K]>;
}

/**
 * An event to append, written to the outbox inside the transaction of the change it describes, so an
 * event exists exactly when its change committed. One member per type (plus the serialized form of
 * the few types that have one), so an event whose `type` is a union of types is still accepted.
 */
export type DomainEvent<T extends EventType = EventType> =
  | { [K in T]: EventWithData<K> }[T]
  | { [K in T & SerializedEventType]: EventWithJson<K> }[T & SerializedEventType];

/** What every event read back from the outbox carries besides its type and payload. */
interface StoredEventFields {
  readonly id: number;
  readonly channelId: string | null;
  readonly userId: string | null;
  readonly recipientId: string | null;
  readonly createdAt: number;
}

/** An event as committed to the outbox: `type` tells the shape of `data`. */
export type OutboxEvent<T extends EventType = EventType> = {
  [K in T]: StoredEventFields & { readonly type: K; readonly data: EventPayloads[K] };
}[T];

/** Whether an event is one of `types`, narrowing it (for listeners that take every event). */
export function isEventOf<T extends EventType>(event: OutboxEvent, types: ReadonlySet<T>): event is Extract<OutboxEvent, { type: T }> {
  return (types as ReadonlySet<EventType>).has(event.type);
}
