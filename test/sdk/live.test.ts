import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createLive, type LiveMessage, RateLimitError, textOf } from '../../packages/client/src/index.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley, waitUntil } from './helpers.js';

const textOfItem = (item: LiveMessage) => (item.status === 'sent' ? textOf(item) : textOf(item.body));

describe.each(testDatabases)('SDK: live collections on %s', (database) => {
  let p: Parley;
  const closers: Array<() => void> = [];

  beforeAll(async () => {
    // Four sends per second per user, so a send can be refused and retried within a test.
    p = await startParley(database, { PARLEY_CLIENT_RATE_SEND: '4', PARLEY_CLIENT_RATE_WINDOW_MS: '1000', PARLEY_TRAY_ENABLED: '1' });
  });
  afterAll(async () => {
    for (const close of closers) close();
    await p.t.close();
  });

  async function session(prefix: string) {
    const who = await p.user(prefix);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: who.token });
    const stream = client.stream();
    closers.push(() => stream.close());
    stream.connect();
    await stream.when('open');
    return { ...who, client, live: createLive(client, stream) };
  }

  /** Messages written through the admin API (outside the users' send budgets). */
  async function seed(channelId: string, texts: string[]) {
    for (const text of texts) {
      const response = await p.admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text } });
      expect(response.statusCode).toBe(200);
    }
  }

  it('keeps channels and unread counts current, and moves the read marker forward only', async () => {
    const ann = await session('ann');
    const bob = await session('bob');
    const quiet = await p.channel([ann.userId, bob.userId]);
    const busy = await p.channel([ann.userId, bob.userId]);
    const channels = ann.live.channels();
    await channels.loadMore();
    expect(channels.items.map((entry) => entry.channel.channelId).sort()).toEqual([quiet, busy].sort());
    expect(channels.hasMore).toBe(false);

    await bob.client.sendMessage(quiet, { type: 'text', data: { text: 'one' } });
    await bob.client.sendMessage(busy, { type: 'text', data: { text: 'two' } });
    await bob.client.sendMessage(busy, { type: 'text', data: { text: 'three' } });
    await waitUntil(() => channels.totalUnread === 3, 'three unread');
    expect(channels.items[0]?.channel.channelId).toBe(busy);
    expect(channels.items[0]?.unreadCount).toBe(2);

    const marker = ann.live.readMarker(busy, { onMoved: (segment) => channels.markedRead(busy, segment) });
    await Promise.all([marker.markRead(1), marker.markRead(2), marker.markRead(1)]);
    expect(marker.segment).toBe(2);
    expect(channels.items.find((entry) => entry.channel.channelId === busy)?.unreadCount).toBe(0);
    const server = await ann.client.channels();
    expect(server.channels.find((entry) => entry.channel.channelId === busy)?.channelUser.readToSegment).toBe(2);
    channels.close();
  });

  it('pages messages both ways and applies new, deleted and reacted messages from the stream', async () => {
    const ann = await session('ann');
    const bob = await session('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    await seed(channelId, ['s1', 's2', 's3', 's4', 's5', 's6', 's7']);
    const messages = ann.live.messages(channelId, { pageSize: 3, startAfterSegment: 2 });
    const snapshots: number[] = [];
    messages.subscribe((snapshot) => snapshots.push(snapshot.items.length));
    await messages.loadMore();
    expect(messages.items.map(textOfItem)).toEqual(['s3', 's4', 's5']);
    expect(messages.hasNewer).toBe(true);
    expect(messages.hasMore).toBe(true);
    await messages.loadMore();
    expect(messages.items.map(textOfItem)).toEqual(['s1', 's2', 's3', 's4', 's5']);
    expect(messages.hasMore).toBe(false);
    await messages.loadNewer();
    expect(messages.items.map(textOfItem)).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7']);
    expect(messages.hasNewer).toBe(false);
    expect(snapshots.length).toBeGreaterThan(3);

    const sent = await bob.client.sendMessage(channelId, { type: 'text', data: { text: 'live' } });
    const liveId = sent.data.messages[0]?.messageId as string;
    await waitUntil(() => messages.items.length === 8, 'the streamed message');
    await bob.client.react(liveId, 'like');
    await waitUntil(() => messages.items.some((item) => item.status === 'sent' && item.reactionsCount === 1), 'the reaction');
    await bob.client.deleteMessage(liveId);
    await waitUntil(() => messages.items.some((item) => item.status === 'sent' && item.messageId === liveId && item.isDeleted), 'the delete');
    expect(messages.items).toHaveLength(8);
    messages.close();
  });

  it('shows messages from the stream before the first page is asked for, each once after it loads', async () => {
    const ann = await session('ann');
    const bob = await session('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    await seed(channelId, ['old']);
    const messages = ann.live.messages(channelId);
    await bob.client.sendMessage(channelId, { type: 'text', data: { text: 'while nobody paged' } });
    await waitUntil(() => messages.items.some((item) => textOfItem(item) === 'while nobody paged'), 'the streamed message, with no page loaded');
    expect(messages.items.at(-1)?.status).toBe('sent');
    await messages.loadMore();
    expect(messages.items.map(textOfItem)).toEqual(['old', 'while nobody paged']);
    messages.close();

    // Opened at a segment whose page does not reach the newest: what the stream brought past it waits for loadNewer.
    await seed(channelId, ['s3', 's4', 's5']);
    const middle = ann.live.messages(channelId, { pageSize: 1, startAfterSegment: 1 });
    await bob.client.sendMessage(channelId, { type: 'text', data: { text: 'newest' } });
    await waitUntil(() => middle.items.some((item) => textOfItem(item) === 'newest'), 'the streamed message');
    await middle.loadMore();
    expect(middle.items.map(textOfItem)).toEqual(['while nobody paged']);
    expect(middle.hasNewer).toBe(true);
    while (middle.hasNewer) await middle.loadNewer();
    expect(middle.items.map(textOfItem)).toEqual(['while nobody paged', 's3', 's4', 's5', 'newest']);
    middle.close();
  });

  it('shows a send at once, holds it once when the stream brings it too, and retries a refused one', async () => {
    const ann = await session('ann');
    const channelId = await p.channel([ann.userId]);
    const messages = ann.live.messages(channelId);
    await messages.loadMore();
    expect(messages.items).toEqual([]);

    const sending = messages.send({ type: 'text', data: { text: 'hi' } });
    expect(messages.items.map((item) => item.status)).toEqual(['pending']);
    const stored = await sending;
    expect(stored?.status).toBe('sent');
    // Give the stream time to bring the same message: it stays one item.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(messages.items.map((item) => [item.status, textOfItem(item)])).toEqual([['sent', 'hi']]);

    // Spend the rest of the send budget, so the next send is refused.
    for (const text of ['a', 'b', 'c']) await ann.client.sendMessage(channelId, { type: 'text', data: { text } });
    expect(await messages.send({ type: 'text', data: { text: 'later' } })).toBeNull();
    const failed = messages.items.at(-1);
    expect(failed?.status).toBe('failed');
    expect(failed?.status !== 'sent' && failed?.error).toBeInstanceOf(RateLimitError);

    await new Promise((resolve) => setTimeout(resolve, 1100));
    const retried = await messages.retry(failed?.localId as string);
    expect(retried?.status).toBe('sent');
    await waitUntil(() => messages.items.length === 5, 'every message once');
    expect(messages.items.map(textOfItem)).toEqual(['hi', 'a', 'b', 'c', 'later']);
    messages.close();
  });

  it("keeps a message's comments, and the parent's comment count, current", async () => {
    const ann = await session('ann');
    const bob = await session('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const parent = (await ann.client.sendMessage(channelId, { type: 'text', data: { text: 'topic' } })).data.messages[0]?.messageId as string;
    const top = ann.live.messages(channelId);
    const comments = ann.live.comments(channelId, parent);
    await Promise.all([top.loadMore(), comments.loadMore()]);
    await comments.send({ type: 'text', data: { text: 'first comment' } });
    await bob.client.sendMessage(channelId, { type: 'text', data: { text: 'second comment' }, parentId: parent });
    await waitUntil(() => comments.items.length === 2, 'both comments');
    expect(comments.items.map(textOfItem)).toEqual(['first comment', 'second comment']);
    await waitUntil(() => top.items[0]?.status === 'sent' && top.items[0].childrenNumber === 2, 'the comment count');
    expect(top.items).toHaveLength(1);
    top.close();
    comments.close();
  });

  it('fills the tray as notifications arrive', async () => {
    const ann = await session('ann');
    const bob = await session('bob');
    const community = await ann.client.createCommunity({ displayName: 'Gardeners' });
    await bob.client.joinCommunity(community.communityId);
    const post = await ann.client.createPost({ text: 'Tomatoes', communityId: community.communityId });
    const tray = ann.live.tray();
    await tray.loadMore();
    expect(tray.items).toEqual([]);
    await bob.client.likePost(post.postId);
    await waitUntil(() => tray.items.length === 1, 'the like record', 10_000);
    const record = tray.items[0];
    expect(record).toMatchObject({ verb: 'like', targetId: post.postId, hasRead: false });
    await tray.markRead(record as NonNullable<typeof record>);
    const history = await ann.client.tray.history();
    expect(history.data[0]?.hasRead).toBe(true);
    tray.close();
  });
});
