import { type CallOptions, type ClientContext, unwrap } from './context.js';
import type {
  Channel,
  ChannelList,
  Comment,
  Community,
  JoinedChannel,
  MessagePage,
  MessageQuery,
  NewMessage,
  Post,
  Profile,
  ReactionAnswer,
  ReadMarker,
  TrayHistory,
  TrayRecordKey,
} from './types.js';

/**
 * A message answer with its messages typed by `type` (types.ts, Message): the server's schema says
 * `type: string` and `data: object`, its contract what each type's `data` holds.
 */
const typed = (page: { data: { messages: unknown[] } }): MessagePage => page as MessagePage;

/** The init of one call: the per-call fetch (auth, retry) and the abort signal. */
function init(context: ClientContext, options?: CallOptions) {
  return { fetch: context.fetchFor(options), ...(options?.signal ? { signal: options.signal } : {}) };
}

/** The client API (/client/v1) and the notification tray (/notifications), typed, errors thrown. */
export function createRest(context: ClientContext) {
  const { api } = context;
  return {
    /** The caller's profile. */
    async me(options?: CallOptions): Promise<Profile> {
      return unwrap(await api.GET('/client/v1/me', init(context, options)));
    },
    /** The caller's channels with unread counts, most recently active first. */
    async channels(query: { limit?: number } = {}, options?: CallOptions): Promise<ChannelList> {
      return unwrap(await api.GET('/client/v1/channels', { params: { query }, ...init(context, options) }));
    },
    /** A page of a channel's messages, oldest first (`after`+`first`, `before`+`last`, or `token`). */
    async messages(channelId: string, query: MessageQuery = {}, options?: CallOptions): Promise<MessagePage> {
      return typed(unwrap(await api.GET('/client/v1/channels/{channelId}/messages', { params: { path: { channelId }, query }, ...init(context, options) })));
    },
    /** Sends a message (`{ type: 'text', data: { text } }`, or `custom` with any object); answers it with its author. */
    async sendMessage(channelId: string, body: NewMessage, options?: CallOptions): Promise<MessagePage> {
      return typed(unwrap(await api.POST('/client/v1/channels/{channelId}/messages', { params: { path: { channelId } }, body, ...init(context, options) })));
    },
    async deleteMessage(messageId: string, options?: CallOptions): Promise<MessagePage> {
      return typed(unwrap(await api.DELETE('/client/v1/messages/{messageId}', { params: { path: { messageId } }, ...init(context, options) })));
    },
    /**
     * Joins a channel open to joining (`channel.joinable`); joining one the caller is a member of changes
     * nothing. Answers the channel and the caller's membership. Refused: 404 missing, 409 closed,
     * 403 / 400304 banned from it, 403 / 400301 not open to joining.
     */
    async joinChannel(channelId: string, options?: CallOptions): Promise<JoinedChannel> {
      return unwrap(await api.POST('/client/v1/channels/{channelId}/join', { params: { path: { channelId } }, ...init(context, options) }));
    },
    /** Leaves a channel the caller is a member of (404 otherwise); answers the channel as it is after. */
    async leaveChannel(channelId: string, options?: CallOptions): Promise<Channel> {
      return unwrap(await api.POST('/client/v1/channels/{channelId}/leave', { params: { path: { channelId } }, ...init(context, options) })).channel;
    },
    /** Moves the caller's read marker forward to `segment` (never back, never past the last message). */
    async markRead(channelId: string, segment: number, options?: CallOptions): Promise<ReadMarker> {
      return unwrap(await api.POST('/client/v1/channels/{channelId}/read', { params: { path: { channelId } }, body: { segment }, ...init(context, options) }));
    },
    async react(messageId: string, reactionName: string, options?: CallOptions): Promise<ReactionAnswer> {
      return unwrap(
        await api.POST('/client/v1/messages/{messageId}/reactions', { params: { path: { messageId } }, body: { reactionName }, ...init(context, options) }),
      );
    },
    async unreact(messageId: string, reactionName: string, options?: CallOptions) {
      return unwrap(
        await api.DELETE('/client/v1/messages/{messageId}/reactions/{reactionName}', {
          params: { path: { messageId, reactionName } },
          ...init(context, options),
        }),
      );
    },
    /** Flags someone else's message for the moderators, with an optional reason (1-500 characters) they see in the queue. */
    async flagMessage(messageId: string, reason?: string, options?: CallOptions) {
      const body = reason === undefined ? {} : { reason };
      return unwrap(await api.POST('/client/v1/messages/{messageId}/flag', { params: { path: { messageId } }, body, ...init(context, options) }));
    },
    async createCommunity(body: { displayName: string; communityId?: string }, options?: CallOptions): Promise<Community> {
      return unwrap(await api.POST('/client/v1/communities', { body, ...init(context, options) }));
    },
    async joinCommunity(communityId: string, options?: CallOptions): Promise<Community> {
      return unwrap(await api.POST('/client/v1/communities/{communityId}/join', { params: { path: { communityId } }, ...init(context, options) }));
    },
    async leaveCommunity(communityId: string, options?: CallOptions): Promise<Community> {
      return unwrap(await api.POST('/client/v1/communities/{communityId}/leave', { params: { path: { communityId } }, ...init(context, options) }));
    },
    /** A post in a community (or, without `communityId`, in the caller's own feed). */
    async createPost(body: { text: string; communityId?: string }, options?: CallOptions): Promise<Post> {
      return unwrap(await api.POST('/client/v1/posts', { body, ...init(context, options) }));
    },
    async commentOnPost(postId: string, text: string, options?: CallOptions): Promise<Comment> {
      return unwrap(await api.POST('/client/v1/posts/{postId}/comments', { params: { path: { postId } }, body: { text }, ...init(context, options) }));
    },
    async likePost(postId: string, options?: CallOptions) {
      return unwrap(
        await api.POST('/client/v1/posts/{postId}/reactions', { params: { path: { postId } }, body: { reactionName: 'like' }, ...init(context, options) }),
      );
    },
    /** The notification tray (403 unless the server enables it). */
    tray: {
      /** Records newest first; pass the previous answer's `lastRecordDate` as `searchAfter` for the next page. */
      async history(query: { searchAfter?: number } = {}, options?: CallOptions): Promise<TrayHistory> {
        return unwrap(await api.GET('/notifications/history', { params: { query }, ...init(context, options) }));
      },
      /** Marks one record read. */
      async markRead(record: TrayRecordKey, options?: CallOptions): Promise<void> {
        unwrap(await api.POST('/notifications/read', { body: record, ...init(context, options) }));
      },
      /** Sets the tray's last-read time to now. */
      async markAllRead(options?: CallOptions): Promise<void> {
        unwrap(await api.POST('/notifications/last-read', init(context, options)));
      },
    },
  };
}
