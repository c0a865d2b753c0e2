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
export type MessagePage = Answer<'/client/v1/channels/{channelId}/messages', 'get'>;
export type Message = MessagePage['data']['messages'][number];
/** A public profile, as message answers list authors. */
export type PublicUser = MessagePage['data']['users'][number];
export type Paging = MessagePage['paging'];
export type MessageQuery = Query<'/client/v1/channels/{channelId}/messages', 'get'>;
export type NewMessage = RequestBody<'/client/v1/channels/{channelId}/messages', 'post'>;
export type ReadMarker = Answer<'/client/v1/channels/{channelId}/read', 'post'>;
export type ReactionAnswer = Answer<'/client/v1/messages/{messageId}/reactions', 'post'>;
export type TrayHistory = Answer<'/notifications/history', 'get'>;
export type TrayRecord = TrayHistory['data'][number];
export type TrayRecordKey = RequestBody<'/notifications/read', 'post'>;
export type Community = Answer<'/client/v1/communities', 'post'>;
export type Post = Answer<'/client/v1/posts', 'post'>;
export type Comment = Answer<'/client/v1/posts/{postId}/comments', 'post'>;
export type TokenAnswer = Answer<'/oauth/token', 'post'>;
