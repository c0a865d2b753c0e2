import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** A client that sends part of a request and stops must not hold its connection and buffered part for ever. */
describe('request timeout', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { PARLEY_REQUEST_TIMEOUT_SECONDS: '1' });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 408 and closes the connection of an upload that stops half-way', async () => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
    const boundary = 'stalled-upload';
    const started = Date.now();
    socket.write(
      [
        'POST /api/v2/messages/files HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${t.adminToken}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        'Content-Length: 100000',
        '',
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${'x'.repeat(1000)}`,
      ].join('\r\n'),
    );
    // Bounded: the timeout is 1 s and the server checks every 250 ms.
    const outcome = await Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000))]);
    socket.destroy();
    expect(outcome).not.toBeNull();
    expect((outcome ?? 0) - started).toBeGreaterThanOrEqual(900);
    expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 408 /);
  });
});
