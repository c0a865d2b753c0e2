export { createSignIn, codeChallengeOf, type SignInOptions, type SignInResult } from './auth/sign-in.js';
export { TokenSession, type StoredTokens, type TokenSessionOptions } from './auth/session.js';
export { memoryStorage, staticToken, type KeyValueStorage, type LockManagerLike, type TokenProvider } from './auth/token-provider.js';
export type { ClientCredentials, FetchLike } from './auth/oauth.js';
export { createClient, type ClientOptions, type ParleyClient } from './client.js';
export type { CallOptions } from './context.js';
export { ParleyError, RateLimitError, type FieldProblem } from './errors.js';
export type { RetryOptions } from './http.js';
export { backoffDelay, type BackoffOptions } from './stream/backoff.js';
export {
  CloseCode,
  isFrame,
  type FrameData,
  type FrameOf,
  type FrameType,
  type MembershipChange,
  type ReactionChange,
  type StreamFrame,
} from './stream/frames.js';
export type { WebSocketFactory, WebSocketLike } from './stream/socket.js';
export { ParleyStream, type StreamEvents, type StreamOptions, type StreamState } from './stream/stream.js';
export type * from './types.js';
export { textOf } from './messages.js';
export type { FileUpload, ImageUpload, UploadBody } from './upload.js';
export type { paths } from './generated/openapi.js';
export {
  createLive,
  LiveChannels,
  LiveMessages,
  LiveTray,
  ReadMarker,
  type LiveMessage,
  type LiveMessagesOptions,
  type LiveSnapshot,
  type PendingMessage,
} from './live/index.js';
