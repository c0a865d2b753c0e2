import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { giveHistory, type MarkedUser, markedUser } from './privacy-fixture.js';

type MessagesBody = { data: { messages: Array<{ messageId: string }> } };

describe.each(testDatabases)('user export on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    // Sends are not rate limited here: one user writes a long history. The answer is a stream, which
    // the response validation of test/helpers cannot read, so the test checks the document itself.
    t = await startTestApp(database, { PARLEY_CLIENT_RATE_SEND: '0' });
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('holds the profile, memberships, messages, reactions, posts, comments and flags, and no secret', async () => {
    const user = await markedUser(t, 'exported');
    const other = await markedUser(t, 'other');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [user.userId, other.userId] });
    const history = await giveHistory(t, user, other, channelId);

    const response = await admin.call('GET', `/api/v2/users/${user.userId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(body.format).toBe('parley.user-export/1');
    expect(body.profile).toMatchObject({
      userId: user.userId,
      displayName: `Name ${user.marker}`,
      email: `${user.marker}@example.com`,
      metadata: { note: user.marker },
    });
    expect(body.channelMemberships).toEqual([expect.objectContaining({ channelId, membership: 'member' })]);
    expect(body.messages.map((message: { messageId: string }) => message.messageId)).toEqual(history.messageIds);
    expect(body.messageReactions).toEqual([expect.objectContaining({ messageId: history.otherMessage, reactionName: 'like' })]);
    expect(body.posts).toEqual([expect.objectContaining({ postId: history.postId })]);
    expect(body.comments).toHaveLength(1);
    expect(body.postReactions).toHaveLength(1);
    expect(body.messageFlags).toEqual([expect.objectContaining({ messageId: history.otherMessage, reason: null })]);
    expect(body.userFlags).toEqual([expect.objectContaining({ userId: other.userId, reason: null })]);
    expect(body.moderationReviews).toEqual([]);
    expect(Array.isArray(body.communityMemberships) && Array.isArray(body.trayRecords)).toBe(true);
    // Nothing of the other user's texts, and no secret: no password hash, no token nor its hash.
    expect(response.body).not.toContain(other.marker);
    expect(response.body).not.toContain('scrypt');
    expect(response.body).not.toContain(user.token);
    expect(response.body).not.toContain(hashToken(user.token));
    expect(response.body).not.toMatch(/password/i);
  });

  it("holds the reasons of the flags raised and the moderation queue's reviews about the user, not who flagged or reviewed", async () => {
    const user = await markedUser(t, 'reported');
    const reporter = await markedUser(t, 'reporter');
    const bystander = await markedUser(t, 'bystander');
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds: [user.userId, reporter.userId, bystander.userId] });
    const send = async (author: MarkedUser, text: string) =>
      (await author.ok<MessagesBody>('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text } })).data.messages[0]?.messageId ?? '';
    const review = async (url: string, body: Record<string, unknown>) => {
      const response = await admin.call('POST', url, body);
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { review: { reviewId: string } }).review.reviewId;
    };

    // Flags the user raised, with reasons.
    const bystanderMessage = await send(bystander, 'a bystander speaks');
    await user.ok('POST', `/client/v1/messages/${bystanderMessage}/flag`, { reason: 'Off topic' });
    await user.ok('POST', `/client/v1/users/${bystander.userId}/flag`, { reason: 'Impersonation' });
    // Reviews about the user: of a message they wrote, and of them as a flagged user.
    const userMessage = await send(user, 'a rude answer');
    await reporter.ok('POST', `/client/v1/messages/${userMessage}/flag`, { reason: 'Rude' });
    const ofMessage = await review(`/api/v2/moderation/messages/${userMessage}/review`, { decision: 'delete', author: { action: 'mute', minutes: 5 } });
    await reporter.ok('POST', `/client/v1/users/${user.userId}/flag`, { reason: 'Spam' });
    const ofUser = await review(`/api/v2/moderation/users/${user.userId}/review`, { decision: 'dismiss', note: 'Looked fine' });
    // A review the user's flag led to, about someone else, is not about them.
    const reporterMessage = await send(reporter, 'a reporter speaks');
    await user.ok('POST', `/client/v1/messages/${reporterMessage}/flag`, { reason: 'Nonsense' });
    await review(`/api/v2/moderation/messages/${reporterMessage}/review`, { decision: 'dismiss' });

    const response = await admin.call('GET', `/api/v2/users/${user.userId}/export`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.messageFlags).toEqual([expect.objectContaining({ messageId: bystanderMessage, reason: 'Off topic' })]);
    expect(body.userFlags).toEqual([expect.objectContaining({ userId: bystander.userId, reason: 'Impersonation' })]);
    expect(body.moderationReviews).toEqual([
      {
        reviewId: ofMessage,
        targetType: 'message',
        targetId: userMessage,
        channelId,
        decision: 'delete',
        authorAction: { action: 'mute', minutes: 5 },
        note: null,
        message: { text: 'a rude answer', userId: user.userId },
        flags: [{ reason: 'Rude', createdAt: expect.any(String) }],
        createdAt: expect.any(String),
      },
      {
        reviewId: ofUser,
        targetType: 'user',
        targetId: user.userId,
        channelId: null,
        decision: 'dismiss',
        authorAction: null,
        note: 'Looked fine',
        message: null,
        flags: [{ reason: 'Spam', createdAt: expect.any(String) }],
        createdAt: expect.any(String),
      },
    ]);
    expect(JSON.stringify(body.moderationReviews)).not.toContain(reporter.userId);
  });

  it('streams a long history page by page', async () => {
    const user = await markedUser(t, 'talker');
    const channelId = t.uniqueId('long');
    await admin.createChannel(channelId, { userIds: [user.userId] });
    const total = 2_000;
    for (let start = 0; start < total; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          user.ok('POST', `/client/v1/channels/${channelId}/messages`, { type: 'text', data: { text: `n${start + index}` } }),
        ),
      );
    }
    const response = await admin.call('GET', `/api/v2/users/${user.userId}/export`);
    expect(response.statusCode).toBe(200);
    const messages = response.json().messages as Array<{ messageId: string; data: { text: string } }>;
    expect(messages).toHaveLength(total);
    expect(new Set(messages.map((message) => message.data.text)).size).toBe(total);
    // In id order, each once: the pages neither overlap nor skip.
    expect(messages.map((message) => message.messageId)).toEqual([...messages.map((message) => message.messageId)].sort());
  }, 120_000);

  it('an unknown user is a 404 in the error envelope', async () => {
    const response = await admin.call('GET', '/api/v2/users/nobody-here/export');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 'error' });
  });
});
