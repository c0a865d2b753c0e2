import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ParleyError } from '../../packages/client/src/index.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley } from './helpers.js';

describe.each(testDatabases)('SDK: uploads with progress on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    p = await startParley(database);
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('sends a file in counted pieces over fetch, and the message keeps its name, type and bytes', async () => {
    const ann = await p.user('ann');
    const channelId = await p.channel([ann.userId]);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });
    const bytes = new Uint8Array(600_000).map((_, index) => index % 251);
    const progress: Array<[number, number]> = [];
    const page = await client.sendFile(channelId, new Blob([bytes], { type: 'text/csv' }), {
      fileName: 'report.csv',
      tags: ['reports'],
      onProgress: (loaded, total) => progress.push([loaded, total]),
    });
    const message = page.data.messages[0];
    expect(message?.type === 'file' && !message.isDeleted ? message.data : null).toMatchObject({
      fileName: 'report.csv',
      contentType: 'text/csv',
      size: 600_000,
    });
    expect(message?.tags).toEqual(['reports']);

    // Several reports, growing, of one total (the multipart body: the file and its headers), the last one all of it.
    const total = progress[0]?.[1] ?? 0;
    expect(total).toBeGreaterThan(600_000);
    expect(progress.length).toBeGreaterThan(5);
    expect(progress.every(([, each]) => each === total)).toBe(true);
    expect(progress.map(([loaded]) => loaded)).toEqual([...progress.map(([loaded]) => loaded)].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual([total, total]);

    const download = await fetch(`${p.baseUrl}/client/v1/messages/${message?.messageId}/files`, { headers: { authorization: `Bearer ${ann.token}` } });
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
  });

  it('sends an image with its caption, and refreshes a refused token once', async () => {
    const bob = await p.user('bob');
    const channelId = await p.channel([bob.userId]);
    const provider = await p.refreshingProvider(bob.userId);
    await p.revokeTokens(bob.userId);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: provider });
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3b82f6' } })
      .png()
      .toBuffer();
    let last: [number, number] | null = null;
    const page = await client.sendImage(channelId, new Uint8Array(png), { caption: 'Whiteboard', onProgress: (loaded, total) => (last = [loaded, total]) });
    const message = page.data.messages[0];
    expect(message?.type).toBe('image');
    expect(message?.type === 'image' && !message.isDeleted ? message.data.caption : null).toBe('Whiteboard');
    expect(provider.refreshes).toBe(1);
    expect(last).not.toBeNull();
    expect((last as unknown as [number, number])[0]).toBe((last as unknown as [number, number])[1]);
  });

  it('throws the refusal as a ParleyError: not a member, not an image', async () => {
    const cid = await p.user('cid');
    const elsewhere = await p.channel([]);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: cid.token });
    const refused = await client.sendFile(elsewhere, new Uint8Array([1, 2, 3]), { fileName: 'x.bin' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ParleyError);
    expect(refused).toMatchObject({ status: 403, code: 400301 });

    const mine = await p.channel([cid.userId]);
    const notImage = await client.sendImage(mine, new TextEncoder().encode('not an image')).catch((error: unknown) => error);
    expect(notImage).toBeInstanceOf(ParleyError);
    expect((notImage as ParleyError).status).toBeGreaterThanOrEqual(400);
  });
});
