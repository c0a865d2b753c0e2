import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesOf, runParley } from '../../cli/processes.js';
import { CONSOLE_CLIENT_ID } from '../../../src/modules/identity/console-client.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { blobFilesIn } from '../../helpers/media.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { findEverywhere, giveHistory, type MarkedUser, markedUser, settle } from './privacy-fixture.js';

interface Review {
  reviewId: string;
  targetId: string;
  reviewer: { kind: string; id: string };
  flags: Array<{ userId: string; reason: string | null }>;
  message: { text: string | null; userId: string } | null;
}

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

  async function sendAs(author: MarkedUser, channelId: string, text: string): Promise<string> {
    const body = await author.ok<{ data: { messages: Array<{ messageId: string }> } }>('POST', `/client/v1/channels/${channelId}/messages`, {
      type: 'text',
      data: { text },
    });
    return body.data.messages[0]?.messageId ?? '';
  }

  async function reviewed(url: string, body: Record<string, unknown>, call = admin.call): Promise<string> {
    const response = await call('POST', url, body);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { review: { reviewId: string } }).review.reviewId;
  }

  /**
   * Reviews of the moderation queue naming the user in each part: the author of a reviewed message
   * (banned from the channel for an hour by it), a flagger in a review's snapshot beside another
   * flagger, a reviewer from the console (as a moderator), and a reviewed user (banned for an hour).
   */
  async function reviewedUser() {
    const user = await markedUser(t, 'reviewed');
    const control = await markedUser(t, 'control');
    const witness = await markedUser(t, 'witness');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [user.userId, control.userId, witness.userId] });
    const ownMessage = await sendAs(user, channelId, `hello ${user.marker}`);
    await control.ok('POST', `/client/v1/messages/${ownMessage}/flag`, { reason: 'control says' });
    const controlMessage = await sendAs(control, channelId, 'a remark of the control');
    await user.ok('POST', `/client/v1/messages/${controlMessage}/flag`, { reason: `flag ${user.marker}` });
    await witness.ok('POST', `/client/v1/messages/${controlMessage}/flag`, { reason: 'witness says' });
    const witnessMessage = await sendAs(witness, channelId, 'a remark of the witness');
    await control.ok('POST', `/client/v1/messages/${witnessMessage}/flag`);
    await control.ok('POST', `/client/v1/users/${user.userId}/flag`, { reason: 'control about the user' });

    const role = t.uniqueId('mods');
    expect((await admin.call('PUT', '/api/v2/roles', { publicIds: [role], permissions: ['DELETE_MESSAGE'] })).statusCode).toBe(200);
    await admin.createUser(user.userId, { roles: [role] });
    const issued = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({
      kind: 'user',
      userId: user.userId,
      clientId: CONSOLE_CLIENT_ID,
      expiresInMs: 3_600_000,
    });
    const asModerator = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${issued.token}` }, payload: body as Record<string, unknown> });
    const byUser = await reviewed(`/api/v2/moderation/messages/${witnessMessage}/review`, { decision: 'dismiss' }, asModerator);
    const ofFlag = await reviewed(`/api/v2/moderation/messages/${controlMessage}/review`, { decision: 'dismiss' });
    const ofMessage = await reviewed(`/api/v2/moderation/messages/${ownMessage}/review`, { decision: 'dismiss', author: { action: 'ban', minutes: 60 } });
    const ofUser = await reviewed(`/api/v2/moderation/users/${user.userId}/review`, { decision: 'globalBan', minutes: 60 });
    return { user, ids: { byUser, ofFlag, ofMessage, ofUser } };
  }

  async function reviewsById(): Promise<Map<string, Review>> {
    const response = await admin.call('GET', '/api/v2/moderation/reviews?limit=100');
    expect(response.statusCode, response.body).toBe(200);
    return new Map((response.json() as { reviews: Review[] }).reviews.map((review) => [review.reviewId, review]));
  }

  it.each(['delete', 'anonymise'] as const)("takes the user out of the moderation queue's reviews, which keep their decisions (messages=%s)", async (mode) => {
    const { user, ids } = await reviewedUser();
    expect(await findEverywhere(t, `"${user.userId}"`)).toContain('moderation_reviews');

    const erased = await admin.call('DELETE', `/api/v2/users/${user.userId}?messages=${mode}`);
    expect(erased.statusCode, erased.body).toBe(200);
    await settle(t);

    const reviews = await reviewsById();
    // The reviewed message keeps its review under the placeholder; its text only as the message keeps it.
    expect(reviews.get(ids.ofMessage)?.message).toEqual({ userId: 'erased-user', text: mode === 'delete' ? null : `hello ${user.marker}` });
    expect(reviews.get(ids.ofMessage)?.flags.map((flag) => flag.reason)).toEqual(['control says']);
    // Their flag leaves the snapshot; the other flagger's stays.
    expect(reviews.get(ids.ofFlag)?.flags.map((flag) => flag.reason)).toEqual(['witness says']);
    expect(reviews.get(ids.byUser)?.reviewer).toEqual({ kind: 'user', id: 'erased-user' });
    expect(reviews.get(ids.ofUser)?.targetId).toBe('erased-user');
    // Nothing names them any more, nor keeps their flag's words; the message's text stays in anonymise mode only.
    expect(await findEverywhere(t, `"${user.userId}"`)).not.toContain('moderation_reviews');
    expect(await findEverywhere(t, `flag ${user.marker}`)).toEqual([]);
    expect((await findEverywhere(t, user.marker)).includes('moderation_reviews')).toBe(mode === 'anonymise');
    // The bans the reviews set for an hour have no one left to lift them for.
    expect(await t.storage.db.selectFrom('ban_lifts').select('user_id').where('user_id', '=', user.userId).execute()).toEqual([]);
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
