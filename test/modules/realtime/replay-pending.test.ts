import { describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../../../src/events/outbox.js';
import { createRealtimeGateway } from '../../../src/modules/realtime/realtime.gateway.js';
import type { RealtimeStore } from '../../../src/modules/realtime/realtime.store.js';
import { looseOutboxEvent } from '../../events/uncatalogued.js';

/**
 * Live events that arrive while a paced replay waits for the client are paced too: flushed in one
 * burst they tripped the slow-consumer cut-off on a reading client.
 */
class PacedSocket {
  bufferedAmount = 0;
  terminated = false;
  closed: number | null = null;
  held: Array<() => void> = [];
  send(frame: Buffer, _options: unknown, callback?: (error?: Error) => void): void {
    // What the client has not read yet stays buffered; a callback fires once the frame is written.
    this.bufferedAmount += frame.length;
    if (callback) this.held.push(() => callback());
  }
  /** The client reads everything written so far. */
  drain(): void {
    this.bufferedAmount = 0;
    for (const release of this.held.splice(0)) release();
  }
  on(): void {}
  ping(): void {}
  close(code: number): void {
    this.closed = code;
  }
  terminate(): void {
    this.terminated = true;
  }
}

const event = (id: number, text: string): OutboxEvent =>
  looseOutboxEvent({
    id,
    type: 'message.created',
    channelId: 'c1',
    userId: 'other',
    recipientId: null,
    data: { channelId: 'c1', data: { text } },
    createdAt: 0,
  });

describe('live events that arrive during a paced replay', () => {
  it('are not flushed in one burst that trips the slow-consumer limit of a client that reads', async () => {
    const missed = [event(1, 'x'.repeat(6_000)), event(2, 'x'.repeat(6_000))];
    const store = {
      channelIdsOf: async () => ['c1'],
      eventsFor: async () => missed,
      newestEventId: async () => 2,
      prunedThrough: async () => 0,
      endedTokens: async () => new Set<string>(),
      bannedUsers: async () => new Set<string>(),
    } as unknown as RealtimeStore;
    const clock = { now: () => Date.now() };
    const gateway = createRealtimeGateway({ store, clock, options: { heartbeatMs: 60_000, maxBufferedBytes: 10_000 } });
    const socket = new PacedSocket();
    try {
      const attached = gateway.attach({ userId: 'u1', tokenId: 't1' }, socket as never, 0);
      // The replay writes event 1 at once, then waits on event 2 (past half the limit).
      for (let i = 0; i < 20 && socket.held.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(socket.held.length).toBe(1);
      // Meanwhile the channel is busy: 20 live events of 1 kB (20 kB in all, twice the limit).
      gateway.deliver(Array.from({ length: 20 }, (_, i) => event(3 + i, 'y'.repeat(1_000))));
      // The client reads everything so far: the replay ends and what waited is sent.
      socket.drain();
      await attached;
      expect(socket.terminated).toBe(false);
    } finally {
      gateway.close();
    }
  });
});
