import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOversizedBodies, oversizedScene, type Scene, SIZE, sendWhole } from './oversized-bodies.js';

/** A body of 40 MB, over every limit, sent by a raw socket that writes the whole body before reading: a readable 413 envelope every time. */
describeOversizedBodies('a raw socket that writes the whole body before reading', (scene, target, body) => sendWhole(scene.port, target, body));

describe('a request that asks before sending its body', () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await oversizedScene();
  });
  afterAll(async () => {
    await scene.close();
  });

  it('is refused at once, before 100 Continue, when its declared length is over anything a route accepts', async () => {
    const socket = net.connect(scene.port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      [
        'POST /api/v2/messages/files HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${scene.adminToken}`,
        'Content-Type: multipart/form-data; boundary=x',
        `Content-Length: ${SIZE}`,
        'Expect: 100-continue',
        '',
        '',
      ].join('\r\n'),
    );
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    socket.destroy();
    const text = Buffer.concat(received).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toContain('100 Continue');
    expect(JSON.parse(text.split('\r\n\r\n')[1] ?? '')).toMatchObject({ status: 'error', code: 500000 });
  });

  it('is told to continue when its length is within the limits, and answered as usual', async () => {
    const body = JSON.stringify({ channelId: `asked-${Date.now()}`, type: 'standard' });
    const socket = net.connect(scene.port, '127.0.0.1');
    const received: Buffer[] = [];
    const continued = new Promise<void>((resolve) =>
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        if (Buffer.concat(received).toString('utf8').includes('100 Continue')) resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      [
        'POST /api/v2/channel HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${scene.adminToken}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Expect: 100-continue',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    await continued;
    socket.write(body);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    socket.destroy();
    const text = Buffer.concat(received).toString('utf8');
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });
});
