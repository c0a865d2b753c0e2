import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * The admin channel routes answer as the original service's published Admin API v2 documents them
 * (docs/compatibility.md): a rename answers the bare channel record (ChannelApiResponse), the
 * rename with the channel in the path (2023 files) is served, and close answers on the plural path
 * every original version documents as well as on the contract's singular one (docs/contract.md, Admin API).
 */
describe.each(testDatabases)('admin channel routes as the original answered them, on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function channelOf(channelId: string) {
    const response = await admin.call('POST', '/api/v2/channels', { tags: [channelId] });
    return response.json().results.find((result: { channel: { channelId: string } }) => result.channel.channelId === channelId)?.channel;
  }

  it('POST /channel/displayName answers the renamed channel record itself, not wrapped', async () => {
    const channelId = t.uniqueId('rename');
    await admin.createChannel(channelId, { tags: [channelId], displayName: 'Old name' });
    const response = await admin.form('POST', '/api/v2/channel/displayName', `channelId=${channelId}&displayName=New%20name`);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).not.toHaveProperty('channel');
    expect(body).toMatchObject({ channelId, type: 'standard', displayName: 'New name', isClosed: false, tags: [channelId] });
    expect(body).toEqual(await channelOf(channelId));
  });

  it('POST /channel/{channelId}/displayName renames the channel of the path and answers its record', async () => {
    const channelId = t.uniqueId('rename-path');
    await admin.createChannel(channelId, { tags: [channelId] });
    const json = await admin.call('POST', `/api/v2/channel/${channelId}/displayName`, { displayName: 'By path' });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ channelId, displayName: 'By path' });
    const form = await admin.form('POST', `/api/v2/channel/${channelId}/displayName`, 'displayName=By%20form');
    expect(form.json()).toMatchObject({ channelId, displayName: 'By form' });
    expect((await channelOf(channelId)).displayName).toBe('By form');

    const unknown = await admin.call('POST', '/api/v2/channel/no-such-channel/displayName', { displayName: 'x' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 'error', code: 400400 });
    const missing = await admin.call('POST', `/api/v2/channel/${channelId}/displayName`, {});
    expect(missing.statusCode).toBe(422);
  });

  it('POST /channels/{channelId}/close (plural, as the original documents it) closes the channel like the singular path', async () => {
    const member = t.uniqueId('member');
    await admin.createUser(member);
    const channelId = t.uniqueId('close-plural');
    await admin.createChannel(channelId, { tags: [channelId], userIds: [member] });

    const closed = await admin.call('POST', `/api/v2/channels/${channelId}/close`);
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toEqual({ status: 'success' });
    expect(await channelOf(channelId)).toMatchObject({ isClosed: true, memberCount: 0 });

    // Closed is closed, whichever path asks again.
    expect((await admin.call('POST', `/api/v2/channels/${channelId}/close`)).json()).toMatchObject({ code: 400900 });
    expect((await admin.call('POST', `/api/v2/channel/${channelId}/close`)).statusCode).toBe(409);
    expect((await admin.call('POST', '/api/v2/channels/no-such-channel/close')).statusCode).toBe(404);
  });
});
