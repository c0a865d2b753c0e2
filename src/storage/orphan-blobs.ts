import type { BlobStore } from './blobs.js';

/** Given blob keys, the subset some row still points at. Each module that writes blobs provides one. */
export type BlobReferences = (keys: readonly string[]) => Promise<Set<string>>;

/**
 * Removes blobs that no row points at. Uploads write their blobs before the row that references them
 * commits (a reader must never see a row without its bytes), so a crash between the two leaves bytes
 * nobody can reach. A blob younger than `graceMs` is left alone: it may belong to an upload still in
 * flight on this or another instance. With one instance, at start-up, nothing is in flight and the
 * grace can be 0.
 */
export async function sweepOrphanBlobs(deps: { blobs: BlobStore; references: readonly BlobReferences[]; now: number; graceMs: number }): Promise<number> {
  const candidates = (await deps.blobs.list()).filter((entry) => entry.modifiedAt <= deps.now - deps.graceMs).map((entry) => entry.key);
  let removed = 0;
  const BATCH = 500;
  for (let start = 0; start < candidates.length; start += BATCH) {
    const batch = candidates.slice(start, start + BATCH);
    const referenced = new Set<string>();
    for (const lookup of deps.references) for (const key of await lookup(batch)) referenced.add(key);
    for (const key of batch) {
      if (referenced.has(key)) continue;
      await deps.blobs.delete(key);
      removed += 1;
    }
  }
  return removed;
}
