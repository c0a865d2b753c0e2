import type { ParleyClient } from '../client.js';
import { isFrame } from '../stream/frames.js';
import type { ParleyStream } from '../stream/stream.js';
import type { TrayHistory, TrayRecord } from '../types.js';
import { LiveList } from './live-list.js';

const keyOf = (record: Pick<TrayRecord, 'verb' | 'targetId' | 'targetGroup'>) => `${record.verb}\u0000${record.targetId}\u0000${record.targetGroup}`;

/**
 * The caller's notification tray, newest first, paged with `searchAfter`. A `tray.updated` frame (or a
 * reload) fetches the first page again and puts its records in place of the held ones with the same
 * verb, target and group, so a record that changed moves to the top instead of appearing twice.
 */
export class LiveTray extends LiveList<TrayRecord> {
  readonly #client: ParleyClient;
  #searchAfter: number | null = null;
  #started = false;
  #lastRead: TrayHistory['lastRead'] | null = null;

  constructor(client: ParleyClient, stream?: ParleyStream) {
    super();
    this.#client = client;
    this.follow(stream, (s) => [
      s.on('frame', (frame) => {
        if (isFrame(frame, 'tray.updated')) void this.refresh();
      }),
      s.on('reload', () => void this.refresh()),
    ]);
  }

  /** When the caller last marked the whole tray read. */
  get lastRead(): TrayHistory['lastRead'] | null {
    return this.#lastRead;
  }

  loadMore(): Promise<void> {
    if (this.#started && this.#searchAfter === null) return Promise.resolve();
    return this.load(async () => {
      const page = await this.#client.tray.history(this.#searchAfter === null ? {} : { searchAfter: this.#searchAfter });
      this.#started = true;
      this.#searchAfter = page.lastRecordDate;
      this.#lastRead = page.lastRead;
      const held = new Set(this.items.map(keyOf));
      this.update({ items: [...this.items, ...page.data.filter((record) => !held.has(keyOf(record)))], hasMore: page.lastRecordDate !== null });
    });
  }

  /** Fetches the newest page again and merges it over the held records. */
  refresh(): Promise<void> {
    if (!this.#started) return this.loadMore();
    return this.load(async () => {
      const page = await this.#client.tray.history();
      this.#lastRead = page.lastRead;
      const fresh = new Set(page.data.map(keyOf));
      const merged = [...page.data, ...this.items.filter((record) => !fresh.has(keyOf(record)))].sort((a, b) => b.lastUpdate - a.lastUpdate);
      this.update({ items: merged });
    });
  }

  /** Marks one record read, here at once and then on the server. */
  async markRead(record: Pick<TrayRecord, 'verb' | 'targetId' | 'targetGroup'>): Promise<void> {
    const key = keyOf(record);
    this.update({ items: this.items.map((item) => (keyOf(item) === key ? { ...item, hasRead: true } : item)) });
    await this.#client.tray.markRead({ verb: record.verb, targetId: record.targetId, targetGroup: record.targetGroup });
  }

  /** Sets the tray's last-read time to now. */
  async markAllRead(): Promise<void> {
    await this.#client.tray.markAllRead();
    await this.refresh();
  }
}
