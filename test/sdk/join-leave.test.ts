import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createLive, isFrame, ParleyError, type StreamFrame } from '../../packages/client/src/index.js';
import { createAdminClient } from '../../packages/client/src/server.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley, waitUntil } from './helpers.js';

describe.each(testDatabases)('SDK: joining and leaving channels on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    p = await startParley(database);
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('joins a channel the admin opens, sees it in the live list, and leaves it', async () => {
    const ann = await p.user('ann');
    const admin = createAdminClient({ baseUrl: p.baseUrl, adminToken: p.t.adminToken });
    const channelId = p.t.uniqueId('club');
    await admin.createChannel({ channelId, type: 'standard', displayName: 'Club' });
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });

    const closed = await client.joinChannel(channelId).catch((error: unknown) => error);
    expect(closed).toBeInstanceOf(ParleyError);
    expect(closed).toMatchObject({ status: 403, code: 400301 });
    expect(await admin.updateChannel(channelId, { joinable: true })).toMatchObject({ channelId, joinable: true });

    const stream = client.stream().connect();
    const frames: StreamFrame[] = [];
    stream.on('frame', (frame) => frames.push(frame));
    await stream.when('open');
    const channels = createLive(client, stream).channels();
    await channels.loadMore();
    expect(channels.items).toEqual([]);

    const joined = await client.joinChannel(channelId);
    expect(joined.channel).toMatchObject({ channelId, joinable: true, memberCount: 2 });
    expect(joined.channelUser).toMatchObject({ userId: ann.userId, membership: 'member' });
    await waitUntil(() => channels.items.some((entry) => entry.channel.channelId === channelId), 'the joined channel in the list');
    await waitUntil(() => frames.some((frame) => isFrame(frame, 'member.added') && frame.data.userIds.includes(ann.userId)), 'member.added');

    const left = await client.leaveChannel(channelId);
    expect(left).toMatchObject({ channelId, memberCount: 1 });
    await waitUntil(() => channels.items.length === 0, 'the channel gone from the list');
    await waitUntil(() => frames.some((frame) => isFrame(frame, 'member.removed') && frame.data.userIds.includes(ann.userId)), 'member.removed');
    await expect(client.leaveChannel(channelId)).rejects.toMatchObject({ status: 404 });
    channels.close();
    stream.close();
  });
});
