import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { makeJpeg, multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/** Every directory and file under `root` with its permission bits, as `ls -l` would show them. */
function modesUnder(root: string): Array<{ entry: string; mode: string }> {
  const found = [{ entry: '.', mode: (fs.statSync(root).mode & 0o777).toString(8) }];
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir)) {
      const full = path.join(dir, name);
      const stat = fs.lstatSync(full);
      found.push({ entry: path.relative(root, full), mode: (stat.mode & 0o777).toString(8) });
      if (stat.isDirectory()) walk(full);
    }
  };
  walk(root);
  return found;
}

/** What would be readable (or enterable) by another local user. */
const openToOthers = (root: string) => modesUnder(root).filter(({ mode }) => (Number.parseInt(mode, 8) & 0o077) !== 0);

describe.each(testDatabases)('DATA_DIR is private to the server user on %s', (database) => {
  const parents: string[] = [];
  let previousUmask: number;
  let t: TestApp | null = null;

  beforeEach(() => {
    // The usual umask of a login shell or a service manager: new files 0644, new directories 0755.
    previousUmask = process.umask(0o022);
  });
  afterEach(async () => {
    await t?.close();
    t = null;
    process.umask(previousUmask);
  });
  afterAll(() => {
    for (const parent of parents) fs.rmSync(parent, { recursive: true, force: true });
  });

  function newDataDir(): string {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-modes-'));
    parents.push(parent);
    // Not there yet: the server makes it on its first start.
    return path.join(parent, 'data');
  }

  async function storeUploads(app: TestApp): Promise<void> {
    const admin = adminClient(app);
    const channelId = app.uniqueId('modes');
    await admin.createChannel(channelId);
    const text = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'written to the WAL' } });
    expect(text.statusCode, text.body).toBe(200);
    const image = multipartBody([['channelId', channelId]], [{ name: 'file', fileName: 'a.jpg', contentType: 'image/jpeg', data: await makeJpeg(64, 48) }]);
    const sent = await app.app.inject({
      method: 'POST',
      url: '/api/v2/messages/images',
      headers: { authorization: `Bearer ${app.adminToken}`, 'content-type': image.contentType },
      payload: image.payload,
    });
    expect(sent.statusCode, sent.body).toBe(200);
  }

  it('makes DATA_DIR 0700 and the database, its WAL, blobs and secret.key 0600 on a first start under umask 022', async () => {
    const dataDir = newDataDir();
    t = await startTestApp(database, { DATA_DIR: dataDir });
    await storeUploads(t);

    const entries = modesUnder(dataDir).map(({ entry }) => entry);
    if (database === 'sqlite') expect(entries).toEqual(expect.arrayContaining(['parley.sqlite', 'parley.sqlite-wal', 'parley.sqlite-shm']));
    expect(entries).toEqual(expect.arrayContaining(['blobs', 'secret.key']));
    expect(entries.filter((entry) => entry.startsWith(`blobs${path.sep}`)).length).toBeGreaterThan(3);
    expect(modesUnder(dataDir).find(({ entry }) => entry === '.')?.mode).toBe('700');
    expect(openToOthers(dataDir)).toEqual([]);
  });

  it('narrows what an earlier start left open to other users, at the next start', async () => {
    const dataDir = newDataDir();
    t = await startTestApp(database, { DATA_DIR: dataDir });
    await storeUploads(t);
    await t.close();
    t = null;
    // As an earlier version left them: every directory 0755, every file 0644.
    for (const { entry } of modesUnder(dataDir)) {
      const full = path.join(dataDir, entry);
      fs.chmodSync(full, fs.statSync(full).isDirectory() ? 0o755 : 0o644);
    }
    expect(openToOthers(dataDir).length).toBeGreaterThan(5);

    t = await startTestApp(database, { DATA_DIR: dataDir });
    expect(openToOthers(dataDir)).toEqual([]);
    await storeUploads(t);
    expect(openToOthers(dataDir)).toEqual([]);
  });
});
