import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../helpers/admin.js';
import { blobFilesIn, exifHasGps, makeJpeg, makeJpegWithGps, makePngBomb, makePngWithAlpha, type MultipartFile, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

const LONGEST = { small: 160, medium: 600, large: 1500 } as const;

describe.each(testDatabases)('image and file messages on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function newChannel(): Promise<string> {
    const channelId = t.uniqueId('media');
    await admin.createChannel(channelId, { tags: [channelId] });
    return channelId;
  }

  async function channelOf(channelId: string) {
    return (await admin.call('POST', '/api/v2/channels', { tags: [channelId] })).json().results[0].channel;
  }

  function upload(path: '/api/v2/messages/images' | '/api/v2/messages/files', fields: Array<[string, string]>, files: MultipartFile[]) {
    const { payload, contentType } = multipartBody(fields, files);
    return t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': contentType }, payload });
  }

  const image = (data: Buffer, fileName = 'photo.jpg', contentType = 'image/jpeg'): MultipartFile => ({ name: 'file', fileName, contentType, data });

  const download = (messageId: string, size?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v2/messages/${messageId}/images${size ? `?size=${size}` : ''}`,
      headers: { authorization: `Bearer ${t.adminToken}`, ...headers },
    });

  it('stores small, medium and large variants, served with their type and caching headers', async () => {
    const channelId = await newChannel();
    const response = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['caption', 'A view'],
      ],
      [image(await makeJpeg(3000, 2000))],
    );
    expect(response.statusCode, response.body).toBe(200);
    const message = response.json().data.messages[0];
    expect(message).toMatchObject({ type: 'image', channelSegment: 1, data: { caption: 'A view' }, isDeleted: false });
    expect(message.fileId).toMatch(/^[0-9a-f]{24}$/);
    expect(message.data.fileId).toBe(message.fileId);
    expect(response.json().data.users[0].userId).toBe('admin-env');
    expect((await channelOf(channelId)).messageCount).toBe(1);

    for (const size of ['small', 'medium', 'large'] as const) {
      const served = await download(message.messageId, size);
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['cache-control']).toContain('max-age=');
      expect(served.headers.etag).toBeTruthy();
      const meta = await sharp(served.rawPayload).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(LONGEST[size]);
      expect((meta.width ?? 0) / (meta.height ?? 1)).toBeCloseTo(1.5, 1);
      const revalidated = await download(message.messageId, size, { 'if-none-match': String(served.headers.etag) });
      expect(revalidated.statusCode).toBe(304);
    }
    const byDefault = await download(message.messageId);
    expect(Math.max((await sharp(byDefault.rawPayload).metadata()).width ?? 0)).toBe(600);

    const full = await download(message.messageId, 'full');
    expect(full.statusCode).toBe(404);
    expect(full.json().code).toBe(400400);
    const badSize = await download(message.messageId, 'huge');
    expect(badSize.statusCode).toBe(400);
    expect(badSize.json().code).toBe(400000);
  });

  it('keeps the full size only with fullImage, never enlarges a small image', async () => {
    const channelId = await newChannel();
    const response = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['fullImage', 'true'],
      ],
      [image(await makeJpeg(1800, 900))],
    );
    expect(response.statusCode, response.body).toBe(200);
    const { messageId } = response.json().data.messages[0];
    const full = await download(messageId, 'full');
    expect(full.statusCode).toBe(200);
    expect(await sharp(full.rawPayload).metadata()).toMatchObject({ width: 1800, height: 900 });
    expect(await sharp((await download(messageId, 'large')).rawPayload).metadata()).toMatchObject({ width: 1500, height: 750 });

    const tiny = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['fullImage', 'false'],
      ],
      [image(await makeJpeg(120, 80))],
    );
    const tinyId = tiny.json().data.messages[0].messageId;
    expect(await sharp((await download(tinyId, 'large')).rawPayload).metadata()).toMatchObject({ width: 120, height: 80 });
    expect((await download(tinyId, 'full')).statusCode).toBe(404);
  });

  it('strips EXIF, GPS included, from every variant and applies its orientation', async () => {
    const channelId = await newChannel();
    const input = await makeJpegWithGps(400, 200);
    const inputMeta = await sharp(input).metadata();
    expect(exifHasGps(inputMeta.exif)).toBe(true);
    expect(inputMeta.orientation).toBe(6);
    expect(input.includes(Buffer.from('parley-secret-place'))).toBe(true);

    const response = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['fullImage', 'true'],
      ],
      [image(input)],
    );
    expect(response.statusCode, response.body).toBe(200);
    const { messageId } = response.json().data.messages[0];
    for (const size of ['small', 'medium', 'large', 'full']) {
      const served = await download(messageId, size);
      expect(served.statusCode).toBe(200);
      const meta = await sharp(served.rawPayload).metadata();
      expect(meta.exif).toBeUndefined();
      expect(exifHasGps(meta.exif)).toBe(false);
      expect(served.rawPayload.includes(Buffer.from('parley-secret-place'))).toBe(false);
      expect(meta.orientation ?? 1).toBe(1);
      // Rotated by 90 degrees: portrait now.
      expect(meta.height).toBeGreaterThan(meta.width ?? 0);
    }
    expect(await sharp((await download(messageId, 'full')).rawPayload).metadata()).toMatchObject({ width: 200, height: 400 });
  });

  it('keeps transparency as PNG', async () => {
    const channelId = await newChannel();
    const response = await upload('/api/v2/messages/images', [['channelId', channelId]], [image(await makePngWithAlpha(800, 800), 'logo.png', 'image/png')]);
    expect(response.statusCode, response.body).toBe(200);
    const served = await download(response.json().data.messages[0].messageId, 'medium');
    expect(served.headers['content-type']).toBe('image/png');
    expect(await sharp(served.rawPayload).metadata()).toMatchObject({ format: 'png', width: 600, height: 600, hasAlpha: true });
  });

  it('reads multipart fields like forms: repeated tags, tags[], a JSON list, boolean strings; comments count', async () => {
    const channelId = await newChannel();
    const jpeg = await makeJpeg(300, 200);
    const parent = (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'parent' } })).json().data.messages[0];
    const repeated = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['tags', 'a'],
        ['tags', 'b'],
        ['parentId', parent.messageId],
      ],
      [image(jpeg)],
    );
    expect(repeated.json().data.messages[0]).toMatchObject({ tags: ['a', 'b'], parentId: parent.messageId, channelSegment: 2 });
    const brackets = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['tags[]', 'c'],
        ['tags[]', 'd'],
      ],
      [image(jpeg)],
    );
    expect(brackets.json().data.messages[0].tags).toEqual(['c', 'd']);
    const single = await upload(
      '/api/v2/messages/files',
      [
        ['channelId', channelId],
        ['tags', 'solo'],
      ],
      [image(jpeg, 'a.bin', 'application/octet-stream')],
    );
    expect(single.json().data.messages[0].tags).toEqual(['solo']);
    const json = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['tags', '["e","f"]'],
      ],
      [image(jpeg)],
    );
    expect(json.json().data.messages[0].tags).toEqual(['e', 'f']);
    const badBoolean = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['fullImage', 'maybe'],
      ],
      [image(jpeg)],
    );
    expect(badBoolean.statusCode).toBe(422);
    expect(badBoolean.json().data.fields[0].field).toBe('body.fullImage');
    const got = (await admin.call('GET', `/api/v2/message/${parent.messageId}`)).json().message;
    expect(got.childrenNumber).toBe(1);
  });

  it('refuses a non-image, a corrupt image and a decompression bomb with 400 / 400000, storing nothing', async () => {
    const channelId = await newChannel();
    const filesBefore = blobFilesIn(t.config.dataDir).length;
    const good = await makeJpeg(1200, 900);
    const cases: Array<[string, Buffer]> = [
      ['text', Buffer.from('just some text, certainly not a picture\n'.repeat(20))],
      ['truncated', good.subarray(0, Math.floor(good.length / 2))],
      ['garbled', Buffer.concat([good.subarray(0, 2000), Buffer.alloc(good.length - 2000, 0xff)])],
      ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')],
      ['bomb', makePngBomb(20_000, 20_000)],
      // Within the pixel budget, but one side so long that resizing took seconds of CPU.
      ['long-bomb', makePngBomb(59_000_000, 1)],
    ];
    expect((cases[4]?.[1].length ?? 0) < 100_000).toBe(true);
    for (const [name, data] of cases) {
      const started = Date.now();
      const response = await upload('/api/v2/messages/images', [['channelId', channelId]], [image(data, `${name}.png`, 'image/png')]);
      expect(response.statusCode, `${name}: ${response.body}`).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', code: 400000 });
      if (name.endsWith('bomb')) {
        expect(response.json().message).toContain('too large');
        expect(Date.now() - started).toBeLessThan(5000);
      }
    }
    expect(blobFilesIn(t.config.dataDir).length).toBe(filesBefore);
    expect((await channelOf(channelId)).messageCount).toBe(0);
    const rows = await t.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute();
    expect(rows).toHaveLength(0);
  });

  it('a create that fails after the blobs were written removes them again', async () => {
    const channelId = await newChannel();
    const other = await newChannel();
    const foreign = (await admin.call('POST', '/api/v2/message', { channelId: other, type: 'text', data: { text: 'x' } })).json().data.messages[0];
    const filesBefore = blobFilesIn(t.config.dataDir).length;
    const jpeg = await makeJpeg(800, 600);

    const wrongParent = await upload(
      '/api/v2/messages/images',
      [
        ['channelId', channelId],
        ['parentId', foreign.messageId],
        ['fullImage', 'true'],
      ],
      [image(jpeg)],
    );
    expect(wrongParent.statusCode).toBe(404);
    const missingChannel = await upload('/api/v2/messages/files', [['channelId', t.uniqueId('gone')]], [image(jpeg)]);
    expect(missingChannel.statusCode).toBe(404);
    const closed = await newChannel();
    await admin.call('POST', `/api/v2/channel/${closed}/close`);
    const inClosed = await upload('/api/v2/messages/images', [['channelId', closed]], [image(jpeg)]);
    expect(inClosed.statusCode).toBe(409);
    expect(inClosed.json().code).toBe(400900);

    expect(blobFilesIn(t.config.dataDir).length).toBe(filesBefore);
    expect((await channelOf(channelId)).messageCount).toBe(0);
  });

  it('requires a multipart body with a file', async () => {
    const channelId = await newChannel();
    const noFile = await upload('/api/v2/messages/images', [['channelId', channelId]], []);
    expect(noFile.statusCode).toBe(422);
    expect(noFile.json().data.fields[0].field).toBe('body.file');
    const noChannel = await upload('/api/v2/messages/images', [], [image(await makeJpeg(50, 50))]);
    expect(noChannel.statusCode).toBe(422);
    const asJson = await admin.call('POST', '/api/v2/messages/images', { channelId });
    expect(asJson.statusCode).toBe(400);
    expect(asJson.json().code).toBe(400000);
    const wrongField = await upload('/api/v2/messages/images', [['channelId', channelId]], [{ ...image(await makeJpeg(50, 50)), name: 'picture' }]);
    expect(wrongField.statusCode).toBe(400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/v2/messages/images',
      ...(() => {
        const { payload, contentType } = multipartBody([['channelId', channelId]], [image(Buffer.from('x'))]);
        return { payload, headers: { 'content-type': contentType } };
      })(),
    });
    expect(anonymous.statusCode).toBe(401);
  });

  it('serves a file message: the original bytes, a safe name, never an active type, nosniff', async () => {
    const channelId = await newChannel();
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const response = await upload(
      '/api/v2/messages/files',
      [
        ['channelId', channelId],
        ['tags', 'doc'],
      ],
      [{ name: 'file', fileName: '../../etc/évil<x>|name\u202e.html', contentType: 'text/html', data: html }],
    );
    expect(response.statusCode, response.body).toBe(200);
    const message = response.json().data.messages[0];
    expect(message).toMatchObject({ type: 'file', tags: ['doc'], data: { contentType: 'text/html', size: html.length } });
    expect(message.data.fileId).toBe(message.fileId);
    expect(message.data.fileName).toBe('évil_x__name_.html');

    const served = await t.app.inject({
      method: 'GET',
      url: `/api/v2/messages/${message.messageId}/files`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(html)).toBe(true);
    expect(served.headers['content-type']).toBe('application/octet-stream');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    const disposition = String(served.headers['content-disposition']);
    expect(disposition).toMatch(/^attachment; filename="[^"\\/\r\n]+"; filename\*=UTF-8''/);
    expect(disposition).toContain(encodeURIComponent('é'));
    expect(disposition).not.toContain('..');

    const pdf = Buffer.from('%PDF-1.4\n%fake but harmless\n');
    const pdfMessage = (
      await upload('/api/v2/messages/files', [['channelId', channelId]], [{ name: 'file', fileName: 'report.pdf', contentType: 'application/pdf', data: pdf }])
    ).json().data.messages[0];
    const pdfServed = await t.app.inject({
      method: 'GET',
      url: `/api/v2/messages/${pdfMessage.messageId}/files`,
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(pdfServed.headers['content-type']).toBe('application/pdf');
    expect(pdfServed.headers['content-disposition']).toContain('filename="report.pdf"');
    expect(pdfMessage.channelSegment).toBe(2);

    // Invisible and control characters go: the Arabic letter mark (a bidi control), a zero-width space, a
    // BOM, a line separator. The joiners real names are written with stay.
    const named = async (fileName: string) =>
      (
        await upload('/api/v2/messages/files', [['channelId', channelId]], [{ name: 'file', fileName, contentType: 'text/plain', data: Buffer.from('x') }])
      ).json().data.messages[0].data.fileName;
    expect(await named('a\u061cb\u200bc\ufeffd\u2028e.txt')).toBe('a_b_c_d_e.txt');
    for (const kept of [
      '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt',
      '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}.png',
      '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}.txt',
    ]) {
      expect(await named(kept)).toBe(kept);
    }

    const asImage = await download(pdfMessage.messageId, 'small');
    expect(asImage.statusCode).toBe(404);
    const textMessage = (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'x' } })).json().data.messages[0];
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v2/messages/${textMessage.messageId}/files`, headers: { authorization: `Bearer ${t.adminToken}` } }))
        .statusCode,
    ).toBe(404);
  });

  it('deleting an image or file message removes its blobs; closing a channel removes those of its messages', async () => {
    const channelId = await newChannel();
    const filesBefore = blobFilesIn(t.config.dataDir).length;
    const jpeg = await makeJpeg(700, 500);
    const first = (
      await upload(
        '/api/v2/messages/images',
        [
          ['channelId', channelId],
          ['fullImage', 'true'],
        ],
        [image(jpeg)],
      )
    ).json().data.messages[0];
    const second = (await upload('/api/v2/messages/images', [['channelId', channelId]], [image(jpeg)])).json().data.messages[0];
    const file = (await upload('/api/v2/messages/files', [['channelId', channelId]], [image(jpeg, 'x.jpg')])).json().data.messages[0];
    expect(blobFilesIn(t.config.dataDir).length).toBe(filesBefore + 4 + 3 + 1);

    const deleted = await admin.call('DELETE', `/api/v2/message/${first.messageId}`);
    expect(deleted.json().data.messages[0]).toMatchObject({ isDeleted: true, data: {}, fileId: null });
    expect(blobFilesIn(t.config.dataDir).length).toBe(filesBefore + 3 + 1);
    expect((await download(first.messageId, 'small')).statusCode).toBe(404);

    await admin.call('POST', `/api/v2/channel/${channelId}/close`);
    expect((await download(second.messageId, 'small')).statusCode).toBe(404);
    const deadline = Date.now() + 10_000;
    while (blobFilesIn(t.config.dataDir).length > filesBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(blobFilesIn(t.config.dataDir).length).toBe(filesBefore);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v2/messages/${file.messageId}/files`, headers: { authorization: `Bearer ${t.adminToken}` } })).statusCode,
    ).toBe(404);
  });

  describe('with a 1 MB upload limit', () => {
    let small: TestApp;
    beforeAll(async () => {
      small = await startTestApp(database, { PARLEY_UPLOAD_LIMIT_MB: '1' });
    });
    afterAll(async () => {
      await small.close();
    });

    it('answers 413 / 500000 over the limit and stores nothing', async () => {
      const channelId = small.uniqueId('limited');
      await adminClient(small).createChannel(channelId);
      const send = (data: Buffer) => {
        const { payload, contentType } = multipartBody(
          [['channelId', channelId]],
          [{ name: 'file', fileName: 'big.bin', contentType: 'application/octet-stream', data }],
        );
        return small.app.inject({
          method: 'POST',
          url: '/api/v2/messages/files',
          headers: { authorization: `Bearer ${small.adminToken}`, 'content-type': contentType },
          payload,
        });
      };
      const over = await send(Buffer.alloc(1024 * 1024 + 1, 7));
      expect(over.statusCode).toBe(413);
      expect(over.json()).toMatchObject({ status: 'error', code: 500000 });
      expect(blobFilesIn(small.config.dataDir)).toHaveLength(0);
      const under = await send(Buffer.alloc(1024 * 1024 - 1, 7));
      expect(under.statusCode).toBe(200);
      expect(blobFilesIn(small.config.dataDir)).toHaveLength(1);
    });

    it('bounds the fields beside the file too: 413 for 150 junk fields of 250 KB, a full caption and 100 tags pass', async () => {
      const channelId = small.uniqueId('fields');
      await adminClient(small).createChannel(channelId);
      const send = (fields: Array<[string, string]>) => {
        const { payload, contentType } = multipartBody(
          [['channelId', channelId], ...fields],
          [{ name: 'file', fileName: 'a.txt', contentType: 'text/plain', data: Buffer.from('hello') }],
        );
        return small.app.inject({
          method: 'POST',
          url: '/api/v2/messages/files',
          headers: { authorization: `Bearer ${small.adminToken}`, 'content-type': contentType },
          payload,
        });
      };
      const junk = await send(Array.from({ length: 150 }, (_, i) => [`junk${i}`, 'j'.repeat(250 * 1024)] as [string, string]));
      expect({ status: junk.statusCode, code: junk.json().code }).toEqual({ status: 413, code: 500000 });
      // Past the count of fields: 413 too, not busboy's 400 "Premature close".
      for (const count of [151, 300]) {
        const tooMany = await send(Array.from({ length: count - 1 }, (_, i) => [`f${i}`, 'x'] as [string, string]));
        expect({ count, status: tooMany.statusCode, code: tooMany.json().code }).toEqual({ count, status: 413, code: 500000 });
        expect(tooMany.json().message).toContain('150 fields');
      }
      expect((await send(Array.from({ length: 149 }, (_, i) => [`f${i}`, 'x'] as [string, string]))).statusCode).toBe(200);
      const full = await send([
        ['caption', '\u{1f600}'.repeat(10_000)],
        ...Array.from({ length: 100 }, (_, i) => ['tags', `t${i}${'x'.repeat(120)}`] as [string, string]),
      ]);
      expect(full.statusCode, full.body).toBe(200);
      expect(full.json().data.messages[0].tags).toHaveLength(100);
      // The 150-field message and the full one; nothing of the refused ones.
      const rows = await small.storage.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).execute();
      expect(rows).toHaveLength(2);
    });
  });
});
