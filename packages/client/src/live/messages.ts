import type { ParleyClient } from '../client.js';
import type { CallOptions } from '../context.js';
import { isFrame, type StreamFrame } from '../stream/frames.js';
import type { ParleyStream } from '../stream/stream.js';
import type { Message, MessagePage, NewMessage } from '../types.js';
import { LiveList } from './live-list.js';

/** A message as a live list holds it: a stored one, or one being sent (`pending`) or refused (`failed`). */
export type LiveMessage = (Message & { status: 'sent'; localId?: string }) | PendingMessage;

export interface PendingMessage {
  status: 'pending' | 'failed';
  localId: string;
  channelId: string;
  body: NewMessage;
  error: unknown;
}

export interface LiveMessagesOptions {
  /** The comments of this message instead of the channel's messages. */
  parentId?: string;
  /** Only top-level messages (no comments); ignored with `parentId`. Default true. */
  topLevelOnly?: boolean;
  pageSize?: number;
  /** Open at this segment instead of the newest: the first page is the messages after it (e.g. the read marker). */
  startAfterSegment?: number;
  /** How sends retry (e.g. `{ rateLimited: true, maxAttempts: 3 }`). */
  sendOptions?: CallOptions;
}

let localCounter = 0;

/**
 * A channel's messages (or a message's comments), oldest first, paged both ways from the newest:
 * `loadMore()` / `hasMore` page back in time, `loadNewer()` / `hasNewer` forward (after a gap). New,
 * deleted and reacted messages from the stream apply by `messageId`, so a message met twice (the stream
 * and a page, a send answer and its frame) is held once. `send()` shows the message at once as
 * `pending`, then replaces it with the stored one, or marks it `failed` for `retry()`.
 */
export class LiveMessages extends LiveList<LiveMessage> {
  readonly #client: ParleyClient;
  readonly #channelId: string;
  readonly #options: LiveMessagesOptions;
  #prev: string | null = null;
  #next: string | null = null;
  #started = false;

  constructor(client: ParleyClient, channelId: string, stream?: ParleyStream, options: LiveMessagesOptions = {}) {
    super();
    this.#client = client;
    this.#channelId = channelId;
    this.#options = options;
    this.follow(stream, (s) => [s.on('frame', (frame) => this.#onFrame(frame)), s.on('reload', () => void this.reload())]);
  }

  /** More messages after the newest loaded (only after a page that did not reach the newest). */
  get hasNewer(): boolean {
    return this.#next !== null;
  }

  /** Loads the first page (the newest, or the one after `startAfterSegment`), then older pages. */
  loadMore(): Promise<void> {
    if (this.#started && this.#prev === null) return Promise.resolve();
    return this.load(async () => {
      const size = this.#options.pageSize ?? 30;
      const start = this.#options.startAfterSegment;
      const first = start === undefined ? { ...this.#filters(), last: size } : { ...this.#filters(), after: start, first: size };
      const isFirst = !this.#started;
      const page = await this.#client.messages(this.#channelId, isFirst ? first : { token: this.#prev as string });
      if (isFirst) this.#next = page.paging.next;
      this.#started = true;
      this.#prev = page.paging.prev;
      this.#merge(page, isFirst);
    });
  }

  /** Loads the page after the newest loaded, when `hasNewer`. */
  loadNewer(): Promise<void> {
    if (this.#next === null) return Promise.resolve();
    return this.load(async () => {
      const page = await this.#client.messages(this.#channelId, { token: this.#next as string });
      this.#next = page.paging.next;
      this.#merge(page, false);
    });
  }

  /** Starts again from the first page (after the stream could not resume). */
  reload(): Promise<void> {
    this.#started = false;
    this.#prev = null;
    this.#next = null;
    const pending = this.items.filter((item) => item.status !== 'sent');
    this.update({ items: pending, hasMore: true });
    return this.loadMore();
  }

  /** Sends a message; it shows at once as pending. Answers the stored message, or null when refused. */
  send(body: NewMessage): Promise<LiveMessage | null> {
    const parentId = this.#options.parentId;
    const full: NewMessage = parentId !== undefined && body.parentId === undefined ? { ...body, parentId } : body;
    const pending: PendingMessage = { status: 'pending', localId: `local-${++localCounter}`, channelId: this.#channelId, body: full, error: null };
    this.update({ items: [...this.items, pending] });
    return this.#deliver(pending);
  }

  /** Sends a failed message again. */
  retry(localId: string): Promise<LiveMessage | null> {
    const failed = this.items.find((item): item is PendingMessage => item.status === 'failed' && item.localId === localId);
    if (!failed) return Promise.resolve(null);
    const pending: PendingMessage = { ...failed, status: 'pending', error: null };
    this.#replace((item) => item === failed, [pending]);
    return this.#deliver(pending);
  }

  /** Drops a failed message from the list. */
  discard(localId: string): void {
    this.update({ items: this.items.filter((item) => item.status === 'sent' || item.localId !== localId) });
  }

  async #deliver(pending: PendingMessage): Promise<LiveMessage | null> {
    try {
      const answer = await this.#client.sendMessage(this.#channelId, pending.body, this.#options.sendOptions);
      const stored = answer.data.messages[0];
      if (!stored) throw new Error('The send answered no message.');
      const sent: LiveMessage = { ...stored, status: 'sent', localId: pending.localId };
      // The stream may have brought the message first: keep one, in the place of the pending one.
      const rest = this.items.filter((item) => item.status !== 'sent' || item.messageId !== stored.messageId);
      this.update({ items: rest.map((item) => (item.status !== 'sent' && item.localId === pending.localId ? sent : item)) });
      return sent;
    } catch (error) {
      this.#replace((item) => item.status !== 'sent' && item.localId === pending.localId, [{ ...pending, status: 'failed', error }]);
      return null;
    }
  }

  #filters() {
    const { parentId, topLevelOnly = true } = this.#options;
    return parentId !== undefined ? { parentId } : topLevelOnly ? { filterByParentId: true } : {};
  }

  #belongs(message: Message): boolean {
    if (message.channelId !== this.#channelId) return false;
    const { parentId, topLevelOnly = true } = this.#options;
    if (parentId !== undefined) return message.parentId === parentId;
    return !topLevelOnly || message.parentId === null;
  }

  #onFrame(frame: StreamFrame): void {
    if (isFrame(frame, 'message.created') && this.#belongs(frame.data)) {
      // Held from the start (before the first page, the newest end is all there is) and while the newest
      // end is loaded; after a page that did not reach the newest, loadNewer brings it.
      if (this.#next === null && !this.#has(frame.data.messageId)) this.#insert(frame.data);
    } else if (isFrame(frame, 'message.deleted') && this.#belongs(frame.data)) {
      this.#replace((item) => item.status === 'sent' && item.messageId === frame.data.messageId, [{ ...frame.data, status: 'sent' }]);
    } else if (isFrame(frame, 'reaction.added') || isFrame(frame, 'reaction.removed')) {
      const { messageId, reactions, reactionsCount } = frame.data.message;
      this.update({
        items: this.items.map((item) => (item.status === 'sent' && item.messageId === messageId ? { ...item, reactions, reactionsCount } : item)),
      });
    } else if (isFrame(frame, 'message.created') && frame.data.channelId === this.#channelId && frame.data.parentId !== null) {
      // A new comment changes its parent's count.
      const parent = frame.data.parentId;
      this.update({
        items: this.items.map((item) => (item.status === 'sent' && item.messageId === parent ? { ...item, childrenNumber: item.childrenNumber + 1 } : item)),
      });
    }
  }

  #has(messageId: string): boolean {
    return this.items.some((item) => item.status === 'sent' && item.messageId === messageId);
  }

  /** Adds a stored message in segment order, before any pending ones. */
  #insert(message: Message): void {
    const sent = this.items.filter((item) => item.status === 'sent');
    const unsent = this.items.filter((item) => item.status !== 'sent');
    const merged = [...sent, { ...message, status: 'sent' as const }].sort((a, b) => a.channelSegment - b.channelSegment);
    this.update({ items: [...merged, ...unsent] });
  }

  /**
   * Adds a page's messages to those held, in segment order (a channel's segments are unique), before any
   * pending ones. A first page that did not reach the newest (`hasNewer`) drops what the stream brought
   * past it meanwhile: loadNewer brings those, with the messages between.
   */
  #merge(page: MessagePage, isFirst: boolean): void {
    const fresh = page.data.messages.filter((message) => !this.#has(message.messageId)).map((message) => ({ ...message, status: 'sent' as const }));
    const last = page.data.messages.at(-1)?.channelSegment;
    const sent = this.items.filter((item): item is Extract<LiveMessage, { status: 'sent' }> => item.status === 'sent');
    const kept = isFirst && this.#next !== null && last !== undefined ? sent.filter((item) => item.channelSegment <= last) : sent;
    const unsent = this.items.filter((item) => item.status !== 'sent');
    const items = [...kept, ...fresh].sort((a, b) => a.channelSegment - b.channelSegment);
    this.update({ items: [...items, ...unsent], hasMore: this.#prev !== null });
  }

  #replace(test: (item: LiveMessage) => boolean, replacement: LiveMessage[]): void {
    const index = this.items.findIndex(test);
    if (index < 0) return;
    this.update({ items: [...this.items.slice(0, index), ...replacement, ...this.items.slice(index + 1)] });
  }
}
