import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_LIMITS, readImageHeader } from '../../../src/modules/messages/images.js';
import { AppError } from '../../../src/shared/errors.js';
import { adminClient } from '../../helpers/admin.js';
import { blobFilesIn, makeJpeg, makePngBomb, multipartBody } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

describe.each(testDatabases)('one set of image limits on every image path, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  let channelId: string;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
    channelId = t.uniqueId('pictures');
    await admin.createChannel(channelId);
  });
  afterAll(async () => {
    await t.close();
  });

  function upload(method: 'POST' | 'PUT', url: string, fields: Array<[string, string]>, data: Buffer): Promise<LightMyRequestResponse> {
    const body = multipartBody(fields, [{ name: 'file', fileName: 'picture.png', contentType: 'image/png', data }]);
    return t.app.inject({ method, url, headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': body.contentType }, payload: body.payload });
  }
  const asMessageImage = (data: Buffer) => upload('POST', '/api/v2/messages/images', [['channelId', channelId]], data);
  const asAvatar = (userId: string, data: Buffer) => upload('PUT', `/api/v2/users/${userId}/avatar`, [], data);

  /** The answer without what differs from one request to the next. */
  const refusal = (response: LightMyRequestResponse) => ({ status: response.statusCode, code: response.json().code, message: response.json().message });

  it.each([
    // One side far past any camera, within the pixel budget: 57 KB that took seconds of CPU to resize.
    ['59,000,000 x 1', 59_000_000, 1],
    ['20,000 x 20,000', 20_000, 20_000],
  ])('refuses a %s PNG as an avatar with the answer the message image path gives, from its header, storing nothing', async (_name, width, height) => {
    const bomb = makePngBomb(width, height);
    expect(bomb.length).toBeLessThan(100_000);
    const userId = t.uniqueId('pic');
    await admin.createUser(userId);
    const blobsBefore = blobFilesIn(t.config.dataDir).length;

    const asMessage = await asMessageImage(bomb);
    const started = Date.now();
    const asProfile = await asAvatar(userId, bomb);
    const took = Date.now() - started;

    expect(refusal(asMessage)).toMatchObject({ status: 400, code: 400000 });
    expect(refusal(asMessage).message).toContain('too large');
    expect(refusal(asProfile)).toEqual(refusal(asMessage));
    // The header alone decides: nothing is decoded (decoding this took seconds).
    expect(took).toBeLessThan(3000);
    expect(blobFilesIn(t.config.dataDir).length).toBe(blobsBefore);
    const user = await t.storage.db.selectFrom('users').select('avatar').where('id', '=', userId).executeTakeFirstOrThrow();
    expect(user.avatar).toBeNull();
  });

  it('still stores an ordinary picture on both paths', async () => {
    const userId = t.uniqueId('pic');
    await admin.createUser(userId);
    const photo = await makeJpeg(800, 600);
    expect((await asMessageImage(photo)).statusCode).toBe(200);
    const avatar = await asAvatar(userId, photo);
    expect(avatar.statusCode, avatar.body).toBe(200);
    expect(avatar.json().avatar).toMatch(/^[0-9a-f]{24}$/);
  });

  it('holds the encoded size to the same limit before reading the header (413 / 500000)', async () => {
    const photo = await makeJpeg(40, 30);
    await expect(readImageHeader(photo)).resolves.toMatchObject({ width: 40, height: 30 });
    const refused = await readImageHeader(photo, { ...IMAGE_LIMITS, maxBytes: photo.length - 1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect({ status: (refused as AppError).httpStatus, kind: (refused as AppError).kind }).toEqual({ status: 413, kind: 'payloadTooLarge' });
  });
});
