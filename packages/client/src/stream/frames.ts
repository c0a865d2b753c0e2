import { FRAME_TYPES, type FrameData as CatalogueFrameData, type FrameType, type ReactionEventRecord } from '../generated/frames.js';
import type { DeletedMessage, Message } from '../types.js';

export type { FrameType, MembershipChange } from '../generated/frames.js';

/**
 * The data of each frame type (`frame.data`): the event catalogue's payloads (src/generated/frames.ts),
 * with the message records typed by `type` as the REST answers are (types.ts, Message).
 */
export type FrameData = Omit<CatalogueFrameData, 'message.created' | 'message.deleted'> & {
  /** A message as sent. */
  'message.created': Exclude<Message, DeletedMessage>;
  /** A deleted message, as its record after the delete (data emptied). */
  'message.deleted': DeletedMessage;
};

/** The close codes the stream uses, and what the SDK does on each. */
export const CloseCode = {
  /** The token expired or was revoked: refresh, then resume. */
  tokenEnded: 4001,
  /** The user is banned from the system: stop. */
  banned: 4003,
  /** The client read too slowly: resume. */
  slowConsumer: 4008,
  /** `since` cannot be resumed: reload state, then start without `since`. */
  resync: 4009,
  /** The upgrade carried no user: reconnect with a token. */
  unauthorized: 1008,
} as const;

/** The data of `reaction.added` and `reaction.removed`: the reaction, and the message's counts after it. */
export type ReactionChange = ReactionEventRecord;

/** A frame of one type: `id` is the event's position, growing; `data` is that type's payload. */
export interface FrameOf<T extends FrameType> {
  id: number;
  type: T;
  data: FrameData[T];
}

/**
 * One frame `{"id","type","data"}` the stream delivers, a union on `type`: testing `frame.type` narrows
 * `frame.data` (`frame.type === 'message.created'` makes it a message record). The types and their data
 * are generated from the server's event catalogue (src/generated/frames.ts).
 */
export type StreamFrame = { [T in FrameType]: FrameOf<T> }[FrameType];

/** A frame as the socket carries it, before its type is known to be one of the SDK's. */
export interface RawFrame {
  id: number;
  type: string;
  data: unknown;
}

const FRAME_TYPE_SET: ReadonlySet<string> = new Set(FRAME_TYPES);

/** A frame of a known type, narrowed by `type` (the same as testing `frame.type === type`). */
export function isFrame<T extends FrameType>(frame: StreamFrame, type: T): frame is Extract<StreamFrame, { type: T }> {
  return frame.type === type;
}

/** Whether a frame's type is one this SDK knows, which makes it a StreamFrame. */
export function isKnownFrame(frame: RawFrame): frame is StreamFrame {
  return FRAME_TYPE_SET.has(frame.type);
}

/** The frame in a text, or null when the text is not one (the stream sends nothing else, but be sure). */
export function parseFrame(text: string): RawFrame | null {
  try {
    const value = JSON.parse(text) as { id?: unknown; type?: unknown; data?: unknown };
    if (typeof value.id !== 'number' || !Number.isSafeInteger(value.id) || typeof value.type !== 'string') return null;
    return { id: value.id, type: value.type, data: value.data };
  } catch {
    return null;
  }
}
