import { useEffect, useState, useSyncExternalStore } from 'react';
import type { ParleyClient } from './client.js';
import { createLive } from './live/index.js';
import type { LiveSnapshot } from './live/live-list.js';
import type { LiveMessage, LiveMessagesOptions } from './live/messages.js';
import type { ParleyStream } from './stream/stream.js';
import type { ChannelEntry, TrayRecord } from './types.js';

/** The live collections of one client and stream (`createLive`), as the hooks below take them. */
export type Live = ReturnType<typeof createLive>;

/** What the hooks read of a live collection (LiveList): its snapshots and their changes. */
export interface SnapshotSource<T> {
  subscribe(listener: (snapshot: LiveSnapshot<T>) => void): () => void;
  getSnapshot(): LiveSnapshot<T>;
}

/** A live collection that loads pages and stops following the stream: channels, messages, comments, the tray. */
interface Loadable {
  loadMore(): Promise<void>;
  close(): void;
}

const EMPTY: LiveSnapshot<never> = { items: [], hasMore: false, loading: false, error: null };
const nothing = () => undefined;

/**
 * The current snapshot of a live collection (items, hasMore, loading, error), rendering again on each
 * change; the empty snapshot while `collection` is null.
 */
export function useLiveSnapshot<T>(collection: SnapshotSource<T> | null): LiveSnapshot<T> {
  return useSyncExternalStore(
    (onChange) => (collection === null ? nothing : collection.subscribe(() => onChange())),
    () => (collection === null ? EMPTY : collection.getSnapshot()),
    () => (collection === null ? EMPTY : collection.getSnapshot()),
  );
}

/**
 * A collection that `make` makes for as long as the component shows it with the same `live` and `key`
 * (`key` names everything `make` depends on): made after the first render, its first page loaded, and
 * closed (its stream listeners removed) when either changes or the component goes. Null before it
 * exists, and while `make` is null.
 */
function useCollection<C extends Loadable>(live: Live, make: (() => C) | null, key: string): C | null {
  const [held, setHeld] = useState<C | null>(null);
  const enabled = make !== null;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what `make` depends on; `make` itself is a new function each render.
  useEffect(() => {
    if (make === null) return undefined;
    const made = make();
    setHeld(made);
    void made.loadMore();
    return () => {
      made.close();
      setHeld(null);
    };
  }, [live, key, enabled]);
  return held;
}

/** The live collections of a client on a stream (connect the stream yourself), made once per pair. */
export function useLive(client: ParleyClient, stream: ParleyStream): Live {
  const [held, setHeld] = useState(() => ({ client, stream, live: createLive(client, stream) }));
  if (held.client === client && held.stream === stream) return held.live;
  const next = { client, stream, live: createLive(client, stream) };
  setHeld(next);
  return next.live;
}

/** The caller's channels with unread counts, kept current (`live.channels()`); `channels` is the collection. */
export function useChannels(live: Live, options: { limit?: number } = {}) {
  const channels = useCollection(live, () => live.channels(options), String(options.limit ?? ''));
  return { channels, ...useLiveSnapshot<ChannelEntry>(channels) };
}

/**
 * A channel's messages (or, with `parentId`, a message's comments), kept current; nothing while
 * `channelId` is null. `messages` is the collection: `loadMore()`, `loadNewer()`, `send(body)`, `retry(localId)`.
 */
export function useMessages(live: Live, channelId: string | null, options: LiveMessagesOptions = {}) {
  const key = JSON.stringify([channelId, options.parentId, options.topLevelOnly, options.pageSize, options.startAfterSegment]);
  const messages = useCollection(live, channelId === null ? null : () => live.messages(channelId, options), key);
  return { messages, ...useLiveSnapshot<LiveMessage>(messages) };
}

/** The notification tray, kept current (`live.tray()`); `tray` is the collection. */
export function useTray(live: Live) {
  const tray = useCollection(live, () => live.tray(), 'tray');
  return { tray, ...useLiveSnapshot<TrayRecord>(tray) };
}
