import createFetchClient, { type Client } from 'openapi-fetch';
import { type ClientCredentials, type FetchLike, platformFetch, tokenRequest, trimBase } from './auth/oauth.js';
import { staticToken, type TokenProvider } from './auth/token-provider.js';
import { unwrap } from './context.js';
import type { paths } from './generated/openapi.js';
import { authorizedFetch, type RetryOptions } from './http.js';
import type { Answer, MessageDataByType, RequestBody, WithTypedMessages } from './types.js';

export { ParleyError, RateLimitError } from './errors.js';
export type { TokenProvider } from './auth/token-provider.js';
export type { RetryOptions } from './http.js';
export type { paths } from './generated/openapi.js';
export type { Message, MessageDataByType, MessagePage, MessageType } from './types.js';

/** A message the admin API sends, typed by `type` as the client API's (types.ts, NewMessage). */
export type AdminNewMessage = Omit<RequestBody<'/api/v2/message', 'post'>, 'type' | 'data'> &
  ({ type: 'text'; data: MessageDataByType['text'] } | { type: 'custom'; data: MessageDataByType['custom'] });

/** The admin API's answer to a message it sent: the message, typed by `type`, and its author. */
export type AdminMessageAnswer = WithTypedMessages<Answer<'/api/v2/message', 'post'>>;

/** The administration API's routes (/api/v2), from the generated types. */
export type AdminPaths = { [P in keyof paths as P extends `/api/v2/${string}` ? P : never]: paths[P] };
/** The bot API's routes (/bot/v1). */
export type BotPaths = { [P in keyof paths as P extends `/bot/v1/${string}` ? P : never]: paths[P] };

interface ServerClientOptions {
  baseUrl: string;
  retry?: RetryOptions;
  fetch?: FetchLike;
}

function apiOf<P extends {}>(options: ServerClientOptions, tokenProvider: TokenProvider): Client<P> {
  const fetch = authorizedFetch({ tokenProvider, fetch: options.fetch ?? platformFetch, ...(options.retry ? { retry: options.retry } : {}) });
  return createFetchClient<P>({ baseUrl: trimBase(options.baseUrl), fetch });
}

/**
 * The administration API for a back end holding an admin token: `api` is typed for every /api/v2 route,
 * and the methods cover what an app's back end does first (people, channels, tokens, OAuth clients).
 * Keep admin tokens on servers; never ship one to a browser.
 */
export function createAdminClient(options: ServerClientOptions & { adminToken: string }) {
  const api = apiOf<AdminPaths>(options, staticToken(options.adminToken));
  return {
    api,
    /** Creates or updates a user (with sign-in fields: username, password, names, email...). */
    async upsertUser(body: RequestBody<'/api/v2/users', 'put'>) {
      return unwrap(await api.PUT('/api/v2/users', { body }));
    },
    async createChannel(body: RequestBody<'/api/v2/channel', 'post'>) {
      return unwrap(await api.POST('/api/v2/channel', { body }));
    },
    /** Changes a channel's settings given (`displayName`, `joinable`) and answers the channel. */
    async updateChannel(channelId: string, body: RequestBody<'/api/v2/channel/{channelId}', 'put'>) {
      return unwrap(await api.PUT('/api/v2/channel/{channelId}', { params: { path: { channelId } }, body }));
    },
    /** Sends a message as the admin's user: `{ channelId, type: 'text', data: { text } }`, or `custom` with any object. */
    async sendMessage(body: AdminNewMessage): Promise<AdminMessageAnswer> {
      return unwrap(await api.POST('/api/v2/message', { body })) as AdminMessageAnswer;
    },
    /** A user access token minted server-side (for apps that sign people in themselves). */
    async mintUserToken(userId: string, expiresIn?: number) {
      return unwrap(await api.POST('/api/v2/users/{userId}/tokens', { params: { path: { userId } }, body: expiresIn === undefined ? {} : { expiresIn } }));
    },
    async createOAuthClient(body: RequestBody<'/api/v2/oauth/clients', 'post'>) {
      return unwrap(await api.POST('/api/v2/oauth/clients', { body }));
    },
    async createBot(body: RequestBody<'/api/v2/bots', 'post'>) {
      return unwrap(await api.POST('/api/v2/bots', { body }));
    },
  };
}

/**
 * A bot's token from the client_credentials grant, fetched when first needed and again when the server
 * refuses it (401) or it nears expiry; concurrent callers share one token request.
 */
export function botTokenProvider(options: ClientCredentials & { baseUrl: string; fetch?: FetchLike; now?: () => number }): TokenProvider {
  const now = options.now ?? Date.now;
  let current: { token: string; expiresAt: number } | null = null;
  let inflight: Promise<string> | null = null;
  const fetchToken = (): Promise<string> => {
    inflight ??= tokenRequest(options.baseUrl, options, { grant_type: 'client_credentials', scope: 'bot' }, options.fetch ?? platformFetch)
      .then((answer) => {
        current = { token: answer.access_token, expiresAt: now() + answer.expires_in * 1000 };
        return answer.access_token;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };
  return {
    getAccessToken: async () => (current !== null && current.expiresAt - 30_000 > now() ? current.token : fetchToken()),
    refresh: async (rejected) => (current !== null && current.token !== rejected ? current.token : fetchToken()),
  };
}

/** The bot API (/bot/v1), typed, with the bot's token from its client credentials. */
export function createBotClient(options: ServerClientOptions & ClientCredentials) {
  const api = apiOf<BotPaths>(options, botTokenProvider(options));
  return {
    api,
    async sendDirect(body: RequestBody<'/bot/v1/direct/message', 'post'>) {
      return unwrap(await api.POST('/bot/v1/direct/message', { body }));
    },
    async sendGroup(body: RequestBody<'/bot/v1/group/message', 'post'>) {
      return unwrap(await api.POST('/bot/v1/group/message', { body }));
    },
  };
}
