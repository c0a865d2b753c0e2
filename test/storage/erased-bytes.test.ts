import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { giveHistory, markedUser, settle } from '../surfaces/admin/privacy-fixture.js';

/**
 * What an erasure or a retention run removes must not be readable in the bytes of the SQLite files
 * (free pages, the slack inside pages, old frames of the WAL), nor in a backup made as
 * docs/operations.md says. SQLite only: the test reads SQLite's own files; PostgreSQL's dead rows and
 * WAL segments are the database server's to reclaim (VACUUM), out of reach of a file read here.
 */

const DAY = 86_400_000;

/** The byte spellings a text may take in a file: UTF-8, and UTF-16 in both byte orders. */
function spellings(text: string): Array<{ encoding: string; bytes: Buffer }> {
  const littleEndian = Buffer.from(text, 'utf16le');
  return [
    { encoding: 'UTF-8', bytes: Buffer.from(text, 'utf8') },
    { encoding: 'UTF-16LE', bytes: littleEndian },
    { encoding: 'UTF-16BE', bytes: Buffer.from(littleEndian).swap16() },
  ];
}

/** Where a marker appears in these files, as `file: marker (encoding) N times, first at byte B`. */
function bytesHolding(files: readonly string[], markers: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const content = fs.readFileSync(file);
    for (const marker of markers)
      for (const { encoding, bytes } of spellings(marker)) {
        const first = content.indexOf(bytes);
        if (first < 0) continue;
        let count = 0;
        for (let at = first; at >= 0; at = content.indexOf(bytes, at + 1)) count += 1;
        found.push(`${path.basename(file)}: ${marker} (${encoding}) ${count} times, first at byte ${first}`);
      }
  }
  return found;
}

describe('erased and expired data in the SQLite files and their backup', () => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let backups = 0;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_TEST_CLOCK: '1' });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const databaseFile = () => path.join(t.config.dataDir, 'parley.sqlite');

  /**
   * An online backup as docs/operations.md gives it (`sqlite3 parley.sqlite ".backup 'copy'"`): the
   * sqlite3 shell's `.backup` drives SQLite's online backup API from its own connection, as
   * better-sqlite3's `backup()` does here, while the server keeps its connection open.
   */
  async function backup(): Promise<string> {
    backups += 1;
    const target = path.join(t.config.dataDir, `backup-${backups}.sqlite`);
    const source = new SQLite(databaseFile(), { fileMustExist: true });
    try {
      await source.backup(target);
    } finally {
      source.close();
    }
    return target;
  }

  /** The database, its WAL and shared-memory index, and a backup made now. */
  async function filesToRead(): Promise<string[]> {
    const file = databaseFile();
    const copy = await backup();
    return [file, `${file}-wal`, `${file}-shm`, copy];
  }

  const hex = () => randomBytes(16).toString('hex');

  async function send(channelId: string, text: string): Promise<void> {
    const response = await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });
    expect(response.statusCode, response.body).toBe(200);
  }

  it("a retention run leaves no byte of the expired messages' texts", async () => {
    const expired = `expired${hex()}`;
    const kept = `kept${hex()}`;
    const shortLived = t.uniqueId('short-lived');
    const lasting = t.uniqueId('lasting');
    await admin.createChannel(shortLived);
    await admin.createChannel(lasting);
    const period = await admin.call('PUT', `/api/v2/channel/${shortLived}/retention`, { days: 1 });
    expect(period.statusCode, period.body).toBe(200);
    for (let index = 0; index < 20; index += 1) await send(shortLived, `note ${index} ${expired}`);
    // Longer than a page: the text goes to overflow pages, which the delete frees whole.
    await send(shortLived, `${expired} `.repeat(300));
    await send(lasting, `stays ${kept}`);
    await settle(t);

    const clock = await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 2 * DAY });
    expect(clock.statusCode, clock.body).toBe(200);
    const run = await admin.call('POST', '/api/v2/retention/run');
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ data: { claimed: true, deleted: 21 } });
    await settle(t);

    const files = await filesToRead();
    expect(bytesHolding(files, [expired])).toEqual([]);
    // The same read finds what was kept, so an empty answer above is no blind spot.
    expect(bytesHolding(files.slice(-1), [kept])).not.toEqual([]);
  });

  it('a reader holding an older snapshot delays the WAL truncation of a retention run, never skips it', async () => {
    const expired = `expired${hex()}`;
    const channelId = t.uniqueId('held');
    await admin.createChannel(channelId);
    const period = await admin.call('PUT', `/api/v2/channel/${channelId}/retention`, { days: 1 });
    expect(period.statusCode, period.body).toBe(200);
    for (let index = 0; index < 5; index += 1) await send(channelId, `note ${index} ${expired}`);
    await settle(t);
    // Another connection reading the database as it is now, texts included, as a long backup would:
    // no checkpoint may copy past its snapshot while it lasts.
    const reader = new SQLite(databaseFile(), { fileMustExist: true });
    reader.exec('begin');
    reader.prepare('select count(*) from messages').get();
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        reader.exec('commit');
        reader.close();
        resolve();
      }, 300),
    );
    try {
      const clock = await admin.call('PUT', '/api/v2/test-clock', { offsetMs: 4 * DAY });
      expect(clock.statusCode, clock.body).toBe(200);
      const run = await admin.call('POST', '/api/v2/retention/run');
      expect(run.statusCode, run.body).toBe(200);
      expect(run.json()).toMatchObject({ data: { claimed: true, deleted: 5 } });
    } finally {
      await released;
    }
    expect(bytesHolding(await filesToRead(), [expired])).toEqual([]);
  });

  it("an erasure leaves no byte of the user's name, email or texts", async () => {
    const user = await markedUser(t, 'erased');
    const control = await markedUser(t, 'control');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [user.userId, control.userId] });
    await giveHistory(t, user, control, channelId);
    for (let index = 0; index < 20; index += 1)
      await user.ok('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `line ${index} ${user.marker}` } });
    await user.ok('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `${user.marker} `.repeat(300) } });
    await settle(t);
    // The name and email as the user's profile holds them, besides the bare marker in every text.
    const traces = [user.marker, `Name ${user.marker}`, `${user.marker}@example.com`];
    expect(bytesHolding([databaseFile(), `${databaseFile()}-wal`], traces)).not.toEqual([]);

    const erased = await admin.call('DELETE', `/api/v2/users/${user.userId}`);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({ status: 'success', erased: { messages: 24 } });
    await settle(t);

    const files = await filesToRead();
    expect(bytesHolding(files, traces)).toEqual([]);
    expect(bytesHolding(files.slice(-1), [control.marker])).not.toEqual([]);
  });
});
