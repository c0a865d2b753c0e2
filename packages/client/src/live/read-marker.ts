import type { ParleyClient } from '../client.js';

/**
 * Moves the caller's read marker in one channel as they read: `markRead(segment)` sends only a segment
 * beyond the last one sent, at most one request at a time, and while one is in flight keeps only the
 * highest segment asked for, sent next. The server moves markers only forward, so nothing is lost by
 * skipping the segments in between.
 */
export class ReadMarker {
  readonly #client: ParleyClient;
  readonly #channelId: string;
  readonly #onMoved: ((segment: number) => void) | undefined;
  #sent = 0;
  #wanted = 0;
  #running: Promise<void> | null = null;

  constructor(client: ParleyClient, channelId: string, options: { onMoved?: (segment: number) => void } = {}) {
    this.#client = client;
    this.#channelId = channelId;
    this.#onMoved = options.onMoved;
  }

  /** The segment the server last confirmed. */
  get segment(): number {
    return this.#sent;
  }

  /** Asks for the marker at `segment`; resolves once the server has it (or a later one). */
  markRead(segment: number): Promise<void> {
    if (segment <= this.#sent || segment <= this.#wanted) return this.#running ?? Promise.resolve();
    this.#wanted = segment;
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#wanted > this.#sent) {
      const target = this.#wanted;
      const answer = await this.#client.markRead(this.#channelId, target);
      this.#sent = Math.max(this.#sent, answer.readToSegment, target);
      this.#onMoved?.(answer.readToSegment);
    }
  }
}
