import type { paths } from './generated/openapi.js';

/** The JSON body of a path's 200 answer, read from the generated OpenAPI types. */
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** The JSON request body of a path, read from the generated OpenAPI types. */
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** The query parameters of a path. */
export type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Profile = Answer<'/client/v1/me', 'get'>;
export type ChannelList = Answer<'/client/v1/channels', 'get'>;
/** A channel of the caller, with their membership and unread count. */
export type ChannelEntry = ChannelList['channels'][number];
export type Channel = ChannelEntry['channel'];
/** The answer of `joinChannel`: the channel and the caller's membership of it. */
export type JoinedChannel = Answer<'/client/v1/channels/{channelId}/join', 'post'>;
type MessagesAnswer = Answer<'/client/v1/channels/{channelId}/messages', 'get'>;
type StoredMessage = MessagesAnswer['data']['messages'][number];

/** What a message's `data` holds, by its `type` (docs/contract.md, Records). */
export interface MessageDataByType {
  text: { text: string };
  image: { caption: string; fileId: string };
  file: { fileId: string; fileName: string; contentType: string; size: number };
  /** The sender's own JSON object. */
  custom: { [key: string]: unknown };
}

export type MessageType = keyof MessageDataByType;

/** A message that is not deleted, of one type: `type` says what `data` holds. */
export type MessageOf<T extends MessageType> = Omit<StoredMessage, 'type' | 'data' | 'isDeleted'> & { type: T; data: MessageDataByType[T]; isDeleted: false };

/** A deleted message: its type stays, its data is emptied. */
export type DeletedMessage = Omit<StoredMessage, 'type' | 'data' | 'isDeleted'> & { type: MessageType; data: { [key: string]: undefined }; isDeleted: true };

/**
 * A message record, a union on `type` and `isDeleted`: `message.type === 'text' && !message.isDeleted`
 * makes `message.data` a `{ text }`. The other fields are the server's own (the generated REST types).
 */
export type Message = { [T in MessageType]: MessageOf<T> }[MessageType] | DeletedMessage;

/** An answer holding messages (`data.messages`), with them typed by `type`. */
export type WithTypedMessages<A extends { data: { messages: unknown[] } }> = Omit<A, 'data'> & { data: Omit<A['data'], 'messages'> & { messages: Message[] } };

/** A page of messages and their authors. */
export type MessagePage = WithTypedMessages<MessagesAnswer>;
/** A public profile, as message answers list authors. */
export type PublicUser = MessagesAnswer['data']['users'][number];
export type Paging = MessagesAnswer['paging'];
export type MessageQuery = Query<'/client/v1/channels/{channelId}/messages', 'get'>;

type NewMessageFields = Omit<RequestBody<'/client/v1/channels/{channelId}/messages', 'post'>, 'type' | 'data'>;

/**
 * A message to send, typed by `type`: `{ type: 'text', data: { text } }` or `{ type: 'custom', data: {...} }`
 * (images and files go through `sendImage` and `sendFile`).
 */
export type NewMessage = NewMessageFields & ({ type: 'text'; data: MessageDataByType['text'] } | { type: 'custom'; data: MessageDataByType['custom'] });
export type ReadMarker = Answer<'/client/v1/channels/{channelId}/read', 'post'>;
export type ReactionAnswer = Answer<'/client/v1/messages/{messageId}/reactions', 'post'>;
export type TrayHistory = Answer<'/notifications/history', 'get'>;
export type TrayRecord = TrayHistory['data'][number];
export type TrayRecordKey = RequestBody<'/notifications/read', 'post'>;
export type Community = Answer<'/client/v1/communities', 'post'>;
export type Post = Answer<'/client/v1/posts', 'post'>;
export type Comment = Answer<'/client/v1/posts/{postId}/comments', 'post'>;
export type TokenAnswer = Answer<'/oauth/token', 'post'>;
