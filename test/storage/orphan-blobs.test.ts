import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDiskBlobStore } from '../../src/storage/blobs.js';
import { openStorage } from '../../src/storage/database.js';
import { adminClient } from '../helpers/admin.js';
import { blobFilesIn, multipartBody } from '../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Uploads write their bytes before the row that points at them commits, so a crash between the two
 * leaves a blob nobody can reach. A restart removes such blobs, keeps every referenced one, and
 * spares young ones when a grace period says another instance may still be uploading.
 */
describe.each(testDatabases)('orphan blobs on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_BLOB_SWEEP_GRACE_SECONDS: '0' });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Starts another app on the same database and DATA_DIR, as a restart does, then closes it. */
  async function restart(graceMs: number): Promise<void> {
    const config = { ...t.config, blobSweepGraceMs: graceMs };
    const again = await buildApp(config, { storage: openStorage({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }) });
    await again.app.close();
  }

  it('removes blobs no message or avatar points at, and keeps the rest', async () => {
    const admin = adminClient(t);
    const channelId = t.uniqueId('orphans');
    await admin.createChannel(channelId);
    const { payload, contentType } = multipartBody(
      [['channelId', channelId]],
      [{ name: 'file', fileName: 'notes.txt', contentType: 'text/plain', data: Buffer.from('kept') }],
    );
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/files',
      headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType },
      payload,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const message = uploaded.json().data.messages[0];
    const kept = blobFilesIn(t.config.dataDir);
    expect(kept).toHaveLength(1);

    // What a crash between the blob write and the commit leaves behind.
    const blobs = createDiskBlobStore(t.config.dataDir);
    await blobs.put('file-0123456789abcdef01234567', Buffer.from('never committed'));
    await blobs.put('large-0123456789abcdef01234568', Buffer.from('never committed'));
    await blobs.put('avatar-0123456789abcdef01234569-small', Buffer.from('never committed'));
    expect(blobFilesIn(t.config.dataDir)).toHaveLength(4);

    // With a grace period, young blobs may be another instance's upload in flight: left alone.
    await restart(600_000);
    expect(blobFilesIn(t.config.dataDir)).toHaveLength(4);

    await restart(0);
    expect(blobFilesIn(t.config.dataDir).sort()).toEqual(kept);
    const served = await t.app.inject({
      method: 'GET',
      url: `/api/v2/messages/${message.messageId}/files`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(served.statusCode).toBe(200);
    expect(served.body).toBe('kept');
  });
});
