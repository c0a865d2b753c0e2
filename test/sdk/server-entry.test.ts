import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, textOf } from '../../packages/client/src/index.js';
import { createAdminClient, createBotClient, ParleyError } from '../../packages/client/src/server.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley } from './helpers.js';

describe.each(testDatabases)('SDK: the server-side entry point on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    p = await startParley(database);
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('manages users and channels with an admin token, and mints a token a user client works with', async () => {
    const admin = createAdminClient({ baseUrl: p.baseUrl, adminToken: p.t.adminToken });
    const userId = p.t.uniqueId('alice');
    const channelId = p.t.uniqueId('general');
    expect(await admin.upsertUser({ userId, displayName: 'Alice' })).toMatchObject({ userId, displayName: 'Alice' });
    const created = await admin.createChannel({ channelId, type: 'standard', userIds: [userId] });
    expect(created.channel.channelId).toBe(channelId);
    const listed = await admin.api.GET('/api/v2/users', { params: { query: { limit: 100 } } });
    expect(listed.data?.users.some((entry) => entry.info.userId === userId)).toBe(true);

    const { accessToken } = await admin.mintUserToken(userId, 600);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: accessToken });
    expect((await client.channels()).channels.map((entry) => entry.channel.channelId)).toEqual([channelId]);

    await expect(admin.createChannel({ channelId, type: 'standard' })).rejects.toMatchObject({ status: 409, code: 400315 });
    const user = createAdminClient({ baseUrl: p.baseUrl, adminToken: accessToken });
    await expect(user.upsertUser({ userId: 'x' })).rejects.toBeInstanceOf(ParleyError);
  });

  it('sends as a bot with a token from its client credentials', async () => {
    const admin = createAdminClient({ baseUrl: p.baseUrl, adminToken: p.t.adminToken });
    const bot = await admin.createBot({ displayName: 'Builder' });
    const person = p.t.uniqueId('dev');
    await admin.upsertUser({ userId: person, displayName: 'Dev' });
    const channelId = p.t.uniqueId('builds');
    await admin.createChannel({ channelId, type: 'standard', userIds: [person, bot.userId] });

    const client = createBotClient({ baseUrl: p.baseUrl, clientId: bot.clientId, clientSecret: bot.clientSecret });
    expect(await client.sendGroup({ gid: channelId, message: { type: 'text', data: 'Build passed' } })).toMatchObject({ status: 'success' });
    const page = await createClient({ baseUrl: p.baseUrl, tokenProvider: (await admin.mintUserToken(person)).accessToken }).messages(channelId);
    expect(page.data.messages.map((message) => [message.userId, textOf(message)])).toEqual([[bot.userId, 'Build passed']]);
  });
});
