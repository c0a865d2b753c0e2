import type { ParleyClient } from '../client.js';
import { isFrame } from '../stream/frames.js';
import type { ParleyStream } from '../stream/stream.js';
import type { ChannelEntry } from '../types.js';
import { LiveList } from './live-list.js';

/**
 * The caller's channels with unread counts, most recently active first, kept current by the stream: a
 * new message moves its channel to the top and counts as unread unless the caller wrote it; renames and
 * membership changes apply; a reload or a channel the caller just joined reloads the list.
 */
export class LiveChannels extends LiveList<ChannelEntry> {
  readonly #client: ParleyClient;
  readonly #limit: number;
  #me: string | null = null;

  constructor(client: ParleyClient, stream?: ParleyStream, options: { limit?: number } = {}) {
    super();
    this.#client = client;
    this.#limit = options.limit ?? 100;
    this.follow(stream, (s) => [
      s.on('frame', (frame) => {
        if (isFrame(frame, 'message.created')) this.#onMessage(frame.data.channelId, frame.data.userId, frame.data.channelSegment, frame.data.createdAt);
        else if (isFrame(frame, 'channel.updated')) this.#replaceChannel(frame.data.channel);
        else if (isFrame(frame, 'member.removed') && this.#me !== null && frame.data.userIds.includes(this.#me)) this.#remove(frame.data.channelId);
        else if (isFrame(frame, 'member.added')) {
          if (this.items.some((entry) => entry.channel.channelId === frame.data.channelId)) this.#replaceChannel(frame.data.channel);
          else void this.refresh();
        }
      }),
      s.on('reload', () => void this.refresh()),
    ]);
  }

  /** Loads the list (the server answers it whole, up to `limit`). */
  loadMore(): Promise<void> {
    return this.refresh();
  }

  refresh(): Promise<void> {
    return this.load(async () => {
      this.#me ??= (await this.#client.me()).userId;
      const list = await this.#client.channels({ limit: this.#limit });
      this.update({ items: list.channels, hasMore: false });
    });
  }

  /** The unread count of every channel together. */
  get totalUnread(): number {
    return this.items.reduce((sum, entry) => sum + entry.unreadCount, 0);
  }

  /** Applies a read marker moved to `segment` (the answer of `markRead`): fewer unread, never below 0. */
  markedRead(channelId: string, segment: number): void {
    this.#map(channelId, (entry) => {
      const moved = Math.max(0, segment - entry.channelUser.readToSegment);
      if (moved === 0) return entry;
      return { ...entry, channelUser: { ...entry.channelUser, readToSegment: segment }, unreadCount: Math.max(0, entry.unreadCount - moved) };
    });
  }

  #onMessage(channelId: string, authorId: string, segment: number, at: string): void {
    const entry = this.items.find((item) => item.channel.channelId === channelId);
    if (!entry) return;
    const own = authorId === this.#me;
    const next: ChannelEntry = {
      ...entry,
      channel: { ...entry.channel, lastActivity: at, messageCount: entry.channel.messageCount + 1 },
      // The author's own message moves their marker; anyone else's is one more unread.
      channelUser: own ? { ...entry.channelUser, readToSegment: segment } : entry.channelUser,
      unreadCount: own ? 0 : entry.unreadCount + 1,
    };
    this.update({ items: [next, ...this.items.filter((item) => item !== entry)] });
  }

  #replaceChannel(channel: ChannelEntry['channel']): void {
    this.#map(channel.channelId, (entry) => ({ ...entry, channel }));
  }

  #remove(channelId: string): void {
    this.update({ items: this.items.filter((entry) => entry.channel.channelId !== channelId) });
  }

  #map(channelId: string, change: (entry: ChannelEntry) => ChannelEntry): void {
    this.update({ items: this.items.map((entry) => (entry.channel.channelId === channelId ? change(entry) : entry)) });
  }
}
