import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runParley } from '../../cli/processes.js';
import { adminClient } from '../../helpers/admin.js';
import { blobFilesIn } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { findEverywhere, giveHistory, markedUser, settle } from './privacy-fixture.js';

describe.each(testDatabases)('user erasure on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database, {}, { validateResponses: true });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function pair() {
    const user = await markedUser(t, 'erased');
    const control = await markedUser(t, 'control');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [user.userId, control.userId] });
    const history = await giveHistory(t, user, control, channelId);
    return { user, control, channelId, history };
  }

  it('leaves no trace of the user in any table or blob, while the other user keeps theirs', async () => {
    const { user, control, channelId, history } = await pair();
    expect(await findEverywhere(t, user.marker)).not.toEqual([]);
    expect(blobFilesIn(t.config.dataDir).some((key) => key.includes(history.avatarId))).toBe(true);

    const erased = await admin.call('DELETE', `/api/v2/users/${user.userId}`);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({
      status: 'success',
      erased: { messages: 3, posts: 1, comments: 1, reactions: 2, flags: 2, memberships: 1, avatars: 1 },
    });
    await settle(t);

    expect(await findEverywhere(t, user.marker)).toEqual([]);
    expect(await findEverywhere(t, control.marker)).not.toEqual([]);
    expect(blobFilesIn(t.config.dataDir).some((key) => key.includes(history.avatarId))).toBe(false);
    // Counts stay true: the channel lost one member, the other's message has no reaction and no flag left.
    const channels = (await admin.call('POST', '/api/v2/channels', { userId: control.userId, options: { limit: 100 } })).json();
    const channel = (channels.results as Array<{ channel: { channelId: string; memberCount: number } }>).find((row) => row.channel.channelId === channelId);
    // The admin who made the channel and the other user.
    expect(channel?.channel.memberCount).toBe(2);
    const message = await control.ok<{ data: { messages: Array<{ reactions: unknown; flagCount: number; messageId: string }> } }>(
      'GET',
      `/client/v1/channels/${channelId}/messages`,
    );
    const theirs = message.data.messages.find((row) => row.messageId === history.otherMessage);
    expect(theirs).toMatchObject({ reactions: {}, flagCount: 0 });
    const controlUser = (await admin.call('GET', `/api/v2/users?search=${encodeURIComponent(control.userId)}`)).json();
    expect(controlUser.users[0].info).toMatchObject({ userId: control.userId, flagCount: 0 });
    // The user and their credentials are gone: the token no longer works, the user is unknown.
    expect((await user.as('GET', '/client/v1/me')).statusCode).toBe(401);
    expect((await admin.call('GET', `/api/v2/users/${user.userId}/sessions`)).statusCode).toBe(404);
    // Running it again finds nobody.
    expect((await admin.call('DELETE', `/api/v2/users/${user.userId}`)).statusCode).toBe(404);
  });

  it('anonymise keeps the messages text under the placeholder author and nothing of the profile', async () => {
    const { user, control, channelId, history } = await pair();
    const erased = await admin.call('DELETE', `/api/v2/users/${user.userId}?messages=anonymise`);
    expect(erased.statusCode, erased.body).toBe(200);
    await settle(t);

    const listing = await control.ok<{ data: { messages: Array<{ messageId: string; userId: string; data: { text?: string }; isDeleted: boolean }> } }>(
      'GET',
      `/client/v1/channels/${channelId}/messages`,
    );
    const kept = listing.data.messages.find((row) => row.messageId === history.messageIds[0]);
    expect(kept).toMatchObject({ userId: 'erased-user', isDeleted: false, data: { text: `hello ${user.marker}` } });
    // The text stays in the messages table (and the outbox copy); the profile and the rest do not.
    const where = await findEverywhere(t, user.marker);
    expect(where.filter((place) => place !== 'messages' && place !== 'outbox' && !place.startsWith('blob:'))).toEqual([]);
    expect(where).toContain('messages');
    expect(await findEverywhere(t, `Name ${user.marker}`)).toEqual([]);
    expect(await findEverywhere(t, `${user.marker}@example.com`)).toEqual([]);
    // No event the user acted in still names them.
    const named = await findEverywhere(t, `"${user.userId}"`);
    expect(named.filter((place) => place === 'outbox' || place === 'messages' || place === 'users')).toEqual([]);
  });

  it('an unknown user is a 404, a bad mode a 400, the placeholder cannot be erased', async () => {
    expect((await admin.call('DELETE', '/api/v2/users/nobody-here')).statusCode).toBe(404);
    const { user } = await pair();
    expect((await admin.call('DELETE', `/api/v2/users/${user.userId}?messages=shred`)).statusCode).toBe(400);
    expect((await admin.call('DELETE', '/api/v2/users/erased-user')).statusCode).toBe(400);
  });

  it('the parley command exports and erases a user; a bad line is a usage error, an unknown user a failure', async () => {
    const { user, control } = await pair();
    const env = { DATA_DIR: t.config.dataDir, ...(t.config.databaseUrl ? { DATABASE_URL: t.config.databaseUrl } : {}) };
    const exported = await runParley(['users', 'export', user.userId], env);
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    const document = JSON.parse(exported.stdout);
    expect(document.profile).toMatchObject({ userId: user.userId, email: `${user.marker}@example.com` });
    expect(document.messages).toHaveLength(3);

    const erased = await runParley(['users', 'erase', user.userId, '--messages', 'anonymise'], env);
    expect(erased.stderr).toBe('');
    expect([erased.code, linesOf(erased.stdout)]).toEqual([0, [expect.stringMatching(new RegExp(`^erased ${user.userId}: 3 messages`))]]);
    await settle(t);
    expect(await findEverywhere(t, `Name ${user.marker}`)).toEqual([]);
    expect(await findEverywhere(t, `Name ${control.marker}`)).not.toEqual([]);

    const again = await runParley(['users', 'erase', user.userId], env);
    expect([again.code, linesOf(again.stderr)]).toEqual([1, [expect.stringMatching(/^parley: .*User not found/)]]);
    const wrong = await runParley(['users', 'erase', user.userId, '--messages', 'shred'], env);
    expect([wrong.code, linesOf(wrong.stderr)]).toEqual([2, [expect.stringMatching(/--messages must be delete or anonymise/)]]);
  }, 120_000);
});
