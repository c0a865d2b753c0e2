import type { BlobStore } from '../../storage/blobs.js';
import { blobKeysOf, IMAGE_SIZES, parseMedia } from './messages.present.js';
import type { MessagesStore } from './messages.store.js';

/**
 * The blobs of deleted messages: removed after the delete commits (a delete keeps the row and its
 * `media` until then), and found again at start after a crash between the two.
 */
export function createMediaSweep(deps: { store: MessagesStore; blobs: BlobStore; onBackgroundError?: ((error: unknown) => void) | undefined }) {
  const { store, blobs } = deps;

  /** Removes the blobs of deleted messages, then forgets them; safe to run at any time, any number of times. */
  async function sweepDeletedMedia(): Promise<number> {
    let removed = 0;
    for (;;) {
      const pending = await store.findPendingMedia(200);
      if (pending.length === 0) return removed;
      for (const row of pending) {
        const media = parseMedia(row.media);
        if (media) for (const key of blobKeysOf(media)) await blobs.delete(key);
      }
      await store.clearMedia(pending.map((row) => row.id));
      removed += pending.length;
    }
  }

  /** After a close commits; a second pass catches a commit slower than the first. */
  const sweepSoon = (): void => {
    for (const delay of [50, 5000]) {
      setTimeout(() => void sweepDeletedMedia().catch((error: unknown) => deps.onBackgroundError?.(error)), delay).unref();
    }
  };

  /** The blob keys (`<variant>-<fileId>`) a live message still points at; for the orphan-blob sweep. */
  async function referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
    const fileIdOf = (key: string): string | null => {
      const dash = key.indexOf('-');
      const variant = key.slice(0, dash);
      return dash > 0 && (variant === 'file' || (IMAGE_SIZES as readonly string[]).includes(variant)) ? key.slice(dash + 1) : null;
    };
    const held = new Set(await store.heldFileIds([...new Set(keys.map(fileIdOf).filter((id): id is string => id !== null))]));
    return new Set(keys.filter((key) => held.has(fileIdOf(key) ?? '')));
  }

  return { sweepDeletedMedia, sweepSoon, referencedBlobKeys };
}
