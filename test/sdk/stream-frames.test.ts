import { describe, expect, it } from 'vitest';
import { ParleyStream, type StreamFrame, staticToken, type WebSocketLike } from '../../packages/client/src/index.js';

/** A socket the test drives: it opens when told, and hands the stream the texts it is given. */
class FakeSocket implements WebSocketLike {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  close(): void {}
  receive(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

describe('SDK: frames of types the SDK does not know', () => {
  it('are not delivered, and their position still counts for resuming', async () => {
    const socket = new FakeSocket();
    const stream = new ParleyStream({ baseUrl: 'http://parley.test', tokenProvider: staticToken('token'), webSocketFactory: () => socket });
    const frames: StreamFrame[] = [];
    stream.on('frame', (frame) => frames.push(frame));
    stream.connect();
    await new Promise((resolve) => setTimeout(resolve, 0));
    socket.onopen?.({});

    const tray = { verb: 'like', targetId: 'post-1', targetGroup: '1700000000000' };
    socket.receive({ id: 1, type: 'tray.updated', data: tray });
    socket.receive({ id: 2, type: 'post.created', data: { sourceId: 'post-2' } });
    socket.receive({ id: 3, type: 'some.future.type', data: {} });
    expect(frames).toEqual([{ id: 1, type: 'tray.updated', data: tray }]);
    expect(stream.lastEventId).toBe(3);
    stream.close();
  });
});
