import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

/**
 * SQLite only: WAL checkpoints run on a worker thread once the database is busy (storage/checkpointer.ts).
 * PostgreSQL has no WAL file of ours to check.
 */
describe('SQLite WAL checkpoints in the background', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-checkpoint-'));
  const adminToken = randomBytes(32).toString('hex');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PARLEY_ADMIN_TOKEN: adminToken });
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  let built: BuiltApp | null = null;

  afterAll(async () => {
    await built?.app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('copies every committed write into the database file while idle, and keeps it across a restart', async () => {
    built = await buildApp(config);
    const created = await built.app.inject({ method: 'POST', url: '/api/v2/channel', headers, payload: { channelId: 'bulk', type: 'standard' } });
    expect(created.statusCode).toBe(200);
    // 60 messages of ~95 KB, each stored twice (the row and its outbox event): ~11 MB, well past the
    // 1 MB that starts the checkpointer and the 4 MB SQLite's own checkpoint would copy at a time.
    const filler = 'x'.repeat(95_000);
    const app = built?.app;
    if (!app) throw new Error('the app did not start');
    for (let round = 0; round < 6; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          app.inject({
            method: 'POST',
            url: '/api/v2/message',
            headers,
            payload: { channelId: 'bulk', type: 'custom', data: { filler, n: round * 10 + index } },
          }),
        ),
      );
      for (const answer of answers) expect(answer.statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const written = 60 * 95_000 * 2;
    // Idle now: the whole WAL reaches the database file, so a copy of that file alone is current.
    await vi.waitFor(() => expect(fs.statSync(path.join(dataDir, 'parley.sqlite')).size).toBeGreaterThan(written), { timeout: 10_000, interval: 100 });

    await built.app.close();
    built = await buildApp(config);
    const page = await built.app.inject({ method: 'POST', url: '/api/v2/messages', headers, payload: { channelId: 'bulk', options: { last: 100 } } });
    expect(page.statusCode).toBe(200);
    const messages = (page.json() as { data: { messages: Array<{ channelSegment: number; data: { n: number; filler: string } }> } }).data.messages;
    expect(messages.map((message) => message.channelSegment)).toEqual(Array.from({ length: 60 }, (_, index) => index + 1));
    expect(new Set(messages.map((message) => message.data.n)).size).toBe(60);
    expect(messages.every((message) => message.data.filler === filler)).toBe(true);
  });
});
