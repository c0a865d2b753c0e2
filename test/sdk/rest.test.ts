import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Message, ParleyError, RateLimitError, textOf } from '../../packages/client/src/index.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley } from './helpers.js';

describe.each(testDatabases)('SDK: typed client API calls on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    // A small send budget so the rate limit is reached in a few calls; one second per window.
    p = await startParley(database, { PARLEY_CLIENT_RATE_SEND: '3', PARLEY_CLIENT_RATE_WINDOW_MS: '1000' });
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('reads the profile and channels, sends, reads a page of messages and moves the read marker', async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const annClient = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });
    const bobClient = createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token });

    const me = await annClient.me();
    expect(me.userId).toBe(ann.userId);

    const sent = await bobClient.sendMessage(channelId, { type: 'text', data: { text: 'hello ann' } });
    const message = sent.data.messages[0];
    expect(message).toMatchObject({ channelId, userId: bob.userId, type: 'text', data: { text: 'hello ann' }, channelSegment: 1 });
    expect(sent.data.users.map((user) => user.userId)).toEqual([bob.userId]);
    await bobClient.sendMessage(channelId, { type: 'text', data: { text: 'second' } });

    const listed = await annClient.channels();
    const entry = listed.channels.find((item) => item.channel.channelId === channelId);
    expect(entry?.unreadCount).toBe(2);

    const page = await annClient.messages(channelId, { last: 1 });
    expect(page.data.messages.map((item) => textOf(item))).toEqual(['second']);
    expect(page.paging.next).toBeNull();
    const older = await annClient.messages(channelId, { token: page.paging.prev as string });
    expect(older.data.messages.map((item) => textOf(item))).toEqual(['hello ann']);

    const marker = await annClient.markRead(channelId, 2);
    expect(marker.readToSegment).toBe(2);
    const after = await annClient.channels();
    expect(after.channels.find((item) => item.channel.channelId === channelId)?.unreadCount).toBe(0);

    const reacted = await annClient.react(message?.messageId as string, 'like');
    expect(reacted.reactions).toEqual({ like: 1 });
  });

  it('throws the error envelope as a ParleyError with status, code, message and detail', async () => {
    const ann = await p.user('ann');
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });

    const missing = await client.messages('no-such-channel').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ParleyError);
    expect(missing).toMatchObject({ status: 404, code: 400400, message: 'Channel not found.' });

    const channelId = await p.channel([ann.userId]);
    // A body the types refuse, sent anyway, as untyped JavaScript could.
    const invalid = await client.sendMessage(channelId, { type: 'text', data: 'not an object' } as never).catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 422, code: 500000 });
    expect((invalid as ParleyError).detail.length).toBeGreaterThan(0);
    expect((invalid as ParleyError).detail[0]).toMatch(/data/);
    expect((invalid as ParleyError).fields[0]?.field).toMatch(/data/);

    const unauthorized = createClient({ baseUrl: p.baseUrl, tokenProvider: 'not-a-token' });
    await expect(unauthorized.me()).rejects.toMatchObject({ status: 401, code: 400100 });
  });

  it('maps 429 to RateLimitError with retryAfter, and waits and retries when the caller asks', async () => {
    const ann = await p.user('ann');
    const channelId = await p.channel([ann.userId]);
    const client = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token });
    const send = (text: string, retry?: { rateLimited: boolean; maxAttempts: number }) =>
      client.sendMessage(channelId, { type: 'text', data: { text } }, retry ? { retry } : undefined);

    for (const text of ['one', 'two', 'three']) await send(text);
    const refused = await send('four').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 400311 });
    expect((refused as RateLimitError).retryAfter).toBeGreaterThanOrEqual(1);

    // The refused call counted too; with retry the SDK waits out the window and the send goes through.
    const started = Date.now();
    const sent = await send('five', { rateLimited: true, maxAttempts: 4 });
    expect(textOf(sent.data.messages[0] as Message)).toBe('five');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);

    // A client-wide retry policy applies to every call.
    const patient = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token, retry: { rateLimited: true, maxAttempts: 4 } });
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((text) => patient.sendMessage(channelId, { type: 'text', data: { text } })));
    expect(results).toHaveLength(5);
    const page = await client.messages(channelId, { last: 20 });
    expect(page.data.messages.map((item) => textOf(item))).toEqual(expect.arrayContaining(['one', 'two', 'three', 'five', 'a', 'b', 'c', 'd', 'e']));
    expect(page.data.messages.map((item) => textOf(item))).not.toContain('four');
  });
});
