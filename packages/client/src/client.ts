import createFetchClient from 'openapi-fetch';
import { type FetchLike, platformFetch, trimBase } from './auth/oauth.js';
import { staticToken, type TokenProvider } from './auth/token-provider.js';
import type { paths } from './generated/openapi.js';
import type { ClientContext } from './context.js';
import { authorizedFetch, type RetryOptions } from './http.js';
import { createRest } from './rest.js';
import { ParleyStream, type StreamOptions } from './stream/stream.js';
import type { WebSocketFactory } from './stream/socket.js';
import type { MessagePage } from './types.js';
import { type FileUpload, type ImageUpload, type UploadBody, uploadMessage } from './upload.js';

export interface ClientOptions {
  /** The Parley server, e.g. `https://chat.example.com` (the client API lives under /client/v1). */
  baseUrl: string;
  /** A TokenSession from sign-in, any TokenProvider, or a token string. */
  tokenProvider: TokenProvider | string;
  /** Default retry behaviour of every call; each call may pass its own. */
  retry?: RetryOptions;
  fetch?: FetchLike;
  /** How the stream opens a WebSocket; default the global WebSocket, else the `ws` package. */
  webSocketFactory?: WebSocketFactory;
}

/**
 * A client of one Parley server for one user: `api` is the typed openapi-fetch client of every route
 * (the server's own schemas), the methods below are the client API and tray with errors thrown, and
 * `stream()` opens the real-time stream.
 */
export function createClient(options: ClientOptions) {
  const baseUrl = trimBase(options.baseUrl);
  const tokenProvider = typeof options.tokenProvider === 'string' ? staticToken(options.tokenProvider) : options.tokenProvider;
  const baseFetch = options.fetch ?? platformFetch;
  const defaultFetch = authorizedFetch({ tokenProvider, fetch: baseFetch, ...(options.retry ? { retry: options.retry } : {}) });
  const api = createFetchClient<paths>({ baseUrl, fetch: defaultFetch });
  const context: ClientContext = {
    api,
    fetchFor: (call) => (call?.retry ? authorizedFetch({ tokenProvider, fetch: baseFetch, retry: call.retry }) : defaultFetch),
  };
  return {
    baseUrl,
    tokenProvider,
    api,
    ...createRest(context),
    /**
     * Sends an image as a message (`Blob`, `File`, `ArrayBuffer` or bytes; caption, tags, parentId,
     * fullImage, topicId), calling `onProgress(loaded, total)` as the body goes out.
     */
    sendImage(channelId: string, image: UploadBody, upload?: ImageUpload): Promise<MessagePage> {
      return uploadMessage({ baseUrl, tokenProvider, fetch: baseFetch, retry: options.retry }, 'images', channelId, image, upload);
    },
    /** Sends a file as a message, its name and content type kept, calling `onProgress(loaded, total)` as the body goes out. */
    sendFile(channelId: string, file: UploadBody, upload?: FileUpload): Promise<MessagePage> {
      return uploadMessage({ baseUrl, tokenProvider, fetch: baseFetch, retry: options.retry }, 'files', channelId, file, upload);
    },
    /** A stream for this user (not yet connected: call `connect()`). */
    stream(streamOptions: Omit<StreamOptions, 'baseUrl' | 'tokenProvider'> = {}): ParleyStream {
      const factory = streamOptions.webSocketFactory ?? options.webSocketFactory;
      return new ParleyStream({ ...streamOptions, baseUrl, tokenProvider, ...(factory ? { webSocketFactory: factory } : {}) });
    },
  };
}

export type ParleyClient = ReturnType<typeof createClient>;
