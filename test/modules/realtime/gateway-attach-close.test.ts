import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestEventId, readEventsAfter } from '../../../src/events/outbox.js';
import { createRealtimeGateway } from '../../../src/modules/realtime/realtime.gateway.js';
import { createRealtimeStore } from '../../../src/modules/realtime/realtime.store.js';
import { adminClient } from '../../helpers/admin.js';
import { gate } from '../../helpers/gate.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** A socket whose handlers the test can fire, recording every send (even after it closed). */
class FakeSocket {
  readonly frames: Array<{ id: number; type: string; data: { data?: { text?: string } } }> = [];
  readonly handlers = new Map<string, Array<() => void>>();
  bufferedAmount = 0;
  closed = false;
  sendsAfterClose = 0;
  send(frame: Buffer): void {
    if (this.closed) this.sendsAfterClose++;
    this.frames.push(JSON.parse(frame.toString('utf8')));
  }
  on(name: string, handler: () => void): void {
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
  }
  fire(name: string): void {
    this.closed = this.closed || name === 'close';
    for (const handler of this.handlers.get(name) ?? []) handler();
  }
  ping(): void {}
  close(): void {}
  terminate(): void {}
}

describe('gateway: a socket that closes while it attaches (sqlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  it('is forgotten: no frame is routed to it after its close event', async () => {
    const admin = adminClient(t);
    const userId = t.uniqueId('quitter');
    await admin.createUser(userId, { displayName: 'Quitter' });
    const channelId = t.uniqueId('busy');
    await admin.createChannel(channelId, { userIds: [userId] });

    const store = createRealtimeStore(t.storage.db, t.storage.dialect);
    const readStarted = gate();
    const release = gate();
    const gatedStore = {
      ...store,
      async channelIdsOf(user: string) {
        const ids = await store.channelIdsOf(user);
        readStarted.open();
        await release.opened;
        return ids;
      },
    };
    const gateway = createRealtimeGateway({ store: gatedStore, clock: t.clock, options: { heartbeatMs: 60_000 } });
    try {
      let position = await latestEventId(t.storage.db);
      const sockets: FakeSocket[] = [];
      // 20 clients that connect and go away at once (a flaky mobile network, or a hostile loop).
      const attaches: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        const socket = new FakeSocket();
        sockets.push(socket);
        attaches.push(gateway.attach({ userId, tokenId: 'unused' }, socket as unknown as WebSocket, position));
      }
      await readStarted.opened;
      for (const socket of sockets) socket.fire('close');
      expect(gateway.connectionCount).toBe(0);
      release.open();
      await Promise.all(attaches);

      await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'to nobody' } });
      const events = await readEventsAfter(t.storage.db, position, 100);
      position = events.at(-1)?.id ?? position;
      gateway.deliver(events);
      const sendsAfterClose = sockets.reduce((sum, socket) => sum + socket.sendsAfterClose, 0);
      // A closed socket left in the channel's set would be written to here.
      expect(sendsAfterClose).toBe(0);
    } finally {
      gateway.close();
    }
  });
});
