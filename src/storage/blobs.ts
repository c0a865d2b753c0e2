import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, narrowMode, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './file-modes.js';

/**
 * Where uploaded bytes live. Keys are ours (never a user's file name), so they are safe path parts.
 * Writes are atomic: a reader sees the whole blob or none of it.
 */
export interface BlobStore {
  put(key: string, data: Buffer): Promise<void>;
  /** The blob's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** A stream for large blobs, or null when there is none. */
  open(key: string): Promise<{ stream: fs.ReadStream; size: number } | null>;
  delete(key: string): Promise<void>;
  /** Every blob in the store with its last write time (ms); for orphan sweeps. */
  list(): Promise<Array<{ key: string; modifiedAt: number }>>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function checkKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`Invalid blob key: ${key}`);
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await fsp.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Blobs written by a start that left them readable to other users (mode 0644 in a 0755 tree) are
 * narrowed to 0600 in 0700 directories. A blob directory already private holds only private blobs
 * (they are written so), so the walk happens once.
 */
function narrowExistingBlobs(blobDir: string): void {
  let mode: number;
  try {
    mode = fs.statSync(blobDir).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((mode & 0o077) === 0) return;
  for (const shard of fs.readdirSync(blobDir)) {
    const shardDir = path.join(blobDir, shard);
    narrowMode(shardDir);
    if (!fs.statSync(shardDir).isDirectory()) continue;
    for (const key of fs.readdirSync(shardDir)) narrowMode(path.join(shardDir, key));
  }
  narrowMode(blobDir);
}

export function createDiskBlobStore(root: string): BlobStore {
  const blobDir = path.join(root, 'blobs');
  const tmpDir = path.join(root, 'blobs-tmp');
  // DATA_DIR and everything under it are the server user's only, whatever the umask (file-modes.ts).
  ensurePrivateDir(root);
  narrowExistingBlobs(blobDir);
  ensurePrivateDir(blobDir);
  ensurePrivateDir(tmpDir);
  // Temporary files left by a crash mid-write are never referenced; clear them at start.
  for (const leftover of fs.readdirSync(tmpDir)) fs.rmSync(path.join(tmpDir, leftover), { force: true });

  // Two levels of fan-out by key prefix keep directories small.
  const pathOf = (key: string): string => path.join(blobDir, key.slice(-2), key);

  return {
    async put(key, data) {
      checkKey(key);
      const target = pathOf(key);
      const temporary = path.join(tmpDir, `${key}.${randomBytes(6).toString('hex')}`);
      await fsp.mkdir(path.dirname(target), { recursive: true, mode: PRIVATE_DIR_MODE });
      const handle = await fsp.open(temporary, 'wx', PRIVATE_FILE_MODE);
      try {
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fsp.rename(temporary, target);
      } catch (error) {
        // A failed write (a full disk) must not leave its part behind to fill the disk further.
        await fsp.rm(temporary, { force: true });
        throw error;
      }
      // The rename is durable once its directory is synced; the row that points here commits next.
      await syncDirectory(path.dirname(target));
    },
    async get(key) {
      checkKey(key);
      try {
        return await fsp.readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async open(key) {
      checkKey(key);
      try {
        const stat = await fsp.stat(pathOf(key));
        return { stream: fs.createReadStream(pathOf(key)), size: stat.size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async delete(key) {
      checkKey(key);
      await fsp.rm(pathOf(key), { force: true });
    },
    async list() {
      const entries: Array<{ key: string; modifiedAt: number }> = [];
      for (const shard of await fsp.readdir(blobDir)) {
        for (const key of await fsp.readdir(path.join(blobDir, shard))) {
          try {
            entries.push({ key, modifiedAt: (await fsp.stat(path.join(blobDir, shard, key))).mtimeMs });
          } catch (error) {
            // Deleted between readdir and stat: not in the store any more.
            if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          }
        }
      }
      return entries;
    },
  };
}
