import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiskBlobStore } from '../../src/storage/blobs.js';

describe('disk blob store', () => {
  const roots: string[] = [];
  const newRoot = () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-blobs-'));
    roots.push(root);
    return root;
  };
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes a blob whole and reads it back', async () => {
    const store = createDiskBlobStore(newRoot());
    await store.put('blob-a1', Buffer.from('hello'));
    expect((await store.get('blob-a1'))?.toString()).toBe('hello');
    expect(await store.get('blob-b2')).toBeNull();
  });

  it('leaves no temporary file behind when a write fails', async () => {
    const root = newRoot();
    const store = createDiskBlobStore(root);
    // The blob's place is taken by a directory with something in it, so the final rename fails.
    const blocked = path.join(root, 'blobs', 'x9', 'blob-x9');
    fs.mkdirSync(path.join(blocked, 'inside'), { recursive: true });
    await expect(store.put('blob-x9', Buffer.alloc(64 * 1024, 1))).rejects.toThrow();
    expect(fs.readdirSync(path.join(root, 'blobs-tmp'))).toEqual([]);
    await store.put('blob-y8', Buffer.from('still works'));
    expect((await store.get('blob-y8'))?.toString()).toBe('still works');
  });
});
