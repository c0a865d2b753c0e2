import type { ParleyStream } from '../stream/stream.js';

/** What a live collection shows at one moment. */
export interface LiveSnapshot<T> {
  items: readonly T[];
  /** More items exist beyond what is loaded (older messages, earlier tray records). */
  hasMore: boolean;
  loading: boolean;
  /** The last load's failure, cleared by the next successful one. */
  error: unknown;
}

/**
 * The common part of the live collections: a snapshot, its subscribers, one load at a time, and the
 * stream listeners that keep it current, removed by `close()`.
 */
export abstract class LiveList<T> {
  protected snapshot: LiveSnapshot<T> = { items: [], hasMore: true, loading: false, error: null };
  readonly #listeners = new Set<(snapshot: LiveSnapshot<T>) => void>();
  readonly #offs: Array<() => void> = [];
  #loading: Promise<void> | null = null;

  /** The current snapshot: another object after every change (what `subscribe` hands listeners). */
  getSnapshot(): LiveSnapshot<T> {
    return this.snapshot;
  }

  get items(): readonly T[] {
    return this.snapshot.items;
  }
  get hasMore(): boolean {
    return this.snapshot.hasMore;
  }
  get loading(): boolean {
    return this.snapshot.loading;
  }
  get error(): unknown {
    return this.snapshot.error;
  }

  /** Calls `listener` with the current snapshot now and after every change; answers the unsubscribe. */
  subscribe(listener: (snapshot: LiveSnapshot<T>) => void): () => void {
    this.#listeners.add(listener);
    listener(this.snapshot);
    return () => this.unsubscribe(listener);
  }

  unsubscribe(listener: (snapshot: LiveSnapshot<T>) => void): void {
    this.#listeners.delete(listener);
  }

  /** Stops following the stream. */
  close(): void {
    for (const off of this.#offs.splice(0)) off();
    this.#listeners.clear();
  }

  protected follow(stream: ParleyStream | undefined, attach: (stream: ParleyStream) => Array<() => void>): void {
    if (stream) this.#offs.push(...attach(stream));
  }

  protected update(change: Partial<LiveSnapshot<T>>): void {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of [...this.#listeners]) listener(this.snapshot);
  }

  /** Runs one load at a time; a load asked for while one runs shares it. Failures land in `error`. */
  protected load(run: () => Promise<void>): Promise<void> {
    this.#loading ??= (async () => {
      this.update({ loading: true });
      try {
        await run();
        this.update({ loading: false, error: null });
      } catch (error) {
        this.update({ loading: false, error });
      } finally {
        this.#loading = null;
      }
    })();
    return this.#loading;
  }
}
