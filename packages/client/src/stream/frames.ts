import type { Channel, Message } from '../types.js';

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

export interface ReactionChange {
  reaction: { referenceId: string; referenceType: 'message'; reactionName: string; userId: string; reactionId: string; createdAt: string };
  message: { messageId: string; channelId: string; reactions: Record<string, number>; reactionsCount: number };
}

export interface MembershipChange {
  channelId: string;
  userIds: string[];
  channel: Channel;
}

/** The data of each frame type the stream sends (`frame.data`). */
export interface FrameData {
  'message.created': Message;
  'message.deleted': Message;
  'reaction.added': ReactionChange;
  'reaction.removed': ReactionChange;
  'channel.updated': { channel: Channel };
  'member.added': MembershipChange;
  'member.removed': MembershipChange;
  'tray.updated': { verb: string; targetId: string; targetGroup: string };
}

/** One frame `{"id","type","data"}`; `id` is the event's position, growing. Unknown types keep `unknown` data. */
export type StreamFrame =
  | { [T in keyof FrameData]: { id: number; type: T; data: FrameData[T] } }[keyof FrameData]
  | { id: number; type: string; data: unknown };

/** A frame of a known type, narrowed by `type`. */
export function isFrame<T extends keyof FrameData>(frame: StreamFrame, type: T): frame is { id: number; type: T; data: FrameData[T] } {
  return frame.type === type;
}

/** The frame in a text, or null when the text is not one (the stream sends nothing else, but be sure). */
export function parseFrame(text: string): StreamFrame | null {
  try {
    const value = JSON.parse(text) as { id?: unknown; type?: unknown; data?: unknown };
    if (typeof value.id !== 'number' || !Number.isSafeInteger(value.id) || typeof value.type !== 'string') return null;
    return { id: value.id, type: value.type, data: value.data };
  } catch {
    return null;
  }
}
