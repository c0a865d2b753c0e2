import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latestEventId, readEventsAfter } from '../../../src/events/outbox.js';
import { createRealtimeGateway } from '../../../src/modules/realtime/realtime.gateway.js';
import { createRealtimeStore } from '../../../src/modules/realtime/realtime.store.js';
import { adminClient } from '../../helpers/admin.js';
import { gate } from '../../helpers/gate.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/** What the gateway writes to a socket, recorded: the frames as the client would parse them. */
class RecordingSocket {
  readonly frames: Array<{ id: number; type: string; data: { channelId?: string; data?: { text?: string } } }> = [];
  bufferedAmount = 0;
  send(frame: Buffer): void {
    this.frames.push(JSON.parse(frame.toString('utf8')));
  }
  on(): void {}
  ping(): void {}
  close(): void {}
  terminate(): void {}
}

/**
 * A socket attaching reads the user's channels, then joins them. A removal that commits after that
 * read and reaches the gateway before the join must still take the socket out of the channel. The
 * gateway here is fed by hand (its store is the real one, with the channel read held at a gate), so
 * the order of the race is the test's to choose.
 */
describe.each(testDatabases)('a socket attaching on %s', (database) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(database);
  });
  afterAll(async () => {
    await t.close();
  });

  it('leaves a channel it was removed from while its channels were being read', async () => {
    const admin = adminClient(t);
    const userId = t.uniqueId('attacher');
    await admin.createUser(userId, { displayName: 'Attacher' });
    const channelId = t.uniqueId('race');
    const stays = t.uniqueId('stays');
    await admin.createChannel(channelId, { userIds: [userId] });
    await admin.createChannel(stays, { userIds: [userId] });

    const store = createRealtimeStore(t.storage.db, t.storage.dialect);
    const channelsRead = gate();
    const join = gate();
    const gatedStore = {
      ...store,
      async channelIdsOf(user: string) {
        const ids = await store.channelIdsOf(user);
        channelsRead.open();
        await join.opened;
        return ids;
      },
    };
    const gateway = createRealtimeGateway({ store: gatedStore, clock: t.clock, options: { heartbeatMs: 60_000 } });
    try {
      let position = await latestEventId(t.storage.db);
      const deliverNew = async () => {
        const events = await readEventsAfter(t.storage.db, position, 100);
        position = events.at(-1)?.id ?? position;
        gateway.deliver(events);
      };
      const socket = new RecordingSocket();
      const attached = gateway.attach({ userId, tokenId: 'unused' }, socket as unknown as WebSocket, position);
      await channelsRead.opened;
      // The read saw the user in both channels; now the removal commits and is routed, before the join.
      await admin.call('DELETE', `/api/v2/channel/${channelId}/users`, { userIds: [userId] });
      await deliverNew();
      join.open();
      await attached;

      await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'after the removal' } });
      await admin.call('POST', '/api/v2/message', { channelId: stays, type: 'text', data: { text: 'still here' } });
      await deliverNew();
      const texts = socket.frames.filter((frame) => frame.type === 'message.created').map((frame) => frame.data.data?.text);
      expect(texts).toEqual(['still here']);
    } finally {
      gateway.close();
    }
  });
});
