import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  backoffDelay,
  createClient,
  isFrame,
  ParleyError,
  type ParleyStream,
  type StreamFrame,
  type StreamState,
  textOf,
  type WebSocketLike,
} from '../../packages/client/src/index.js';
import { freePort } from '../helpers/signin.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley, waitUntil } from './helpers.js';

/** Records a stream's frames, states and events. */
function observe(stream: ParleyStream) {
  const seen = { frames: [] as StreamFrame[], states: [] as StreamState[], reloads: 0, banned: 0 };
  stream.on('frame', (frame) => seen.frames.push(frame));
  stream.on('state', (state) => seen.states.push(state));
  stream.on('reload', () => seen.reloads++);
  stream.on('banned', () => seen.banned++);
  return seen;
}

const textsOf = (frames: StreamFrame[]) => frames.flatMap((frame) => (isFrame(frame, 'message.created') ? [textOf(frame.data)] : []));

describe.each(testDatabases)('SDK: the real-time stream on %s', (database) => {
  let p: Parley;

  beforeAll(async () => {
    // A short heartbeat, so revoked tokens end their streams within the test.
    p = await startParley(database, {}, { gateway: { heartbeatMs: 100 } });
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('delivers frames, survives a dropped connection and resumes with no event lost or repeated', async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const bobClient = createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token });
    const send = (text: string) => bobClient.sendMessage(channelId, { type: 'text', data: { text } });

    // The factory holds a reconnect until the test lets it go, and resumes from two frames earlier than
    // asked: the server then replays frames already delivered, which the SDK must drop.
    const urls: string[] = [];
    let hold: Promise<void> | null = null;
    const factory = async (url: string): Promise<WebSocketLike> => {
      urls.push(url);
      if (hold) await hold;
      const target = new URL(url);
      const since = target.searchParams.get('since');
      if (since !== null) target.searchParams.set('since', String(Number(since) - 2));
      return new WebSocket(target.toString()) as unknown as WebSocketLike;
    };
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token, webSocketFactory: factory }).stream({ backoff: { initialMs: 20, maxMs: 100 } });
    const seen = observe(stream);
    stream.connect();
    await stream.when('open');
    expect(stream.state).toBe('open');

    for (const text of ['m1', 'm2', 'm3']) await send(text);
    await waitUntil(() => textsOf(seen.frames).length === 3, 'the first three messages');
    const lastBeforeDrop = stream.lastEventId;

    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    expect(p.dropStreams()).toBe(1);
    await stream.when('reconnecting');
    // Sent while the client is away.
    for (const text of ['m4', 'm5', 'm6']) await send(text);
    release();
    await stream.when('open');
    await send('m7');
    await waitUntil(() => textsOf(seen.frames).includes('m7'), 'the message after the reconnect');

    expect(textsOf(seen.frames)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7']);
    const ids = seen.frames.map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new URL(urls.at(-1) as string).searchParams.get('since')).toBe(String(lastBeforeDrop));
    expect(seen.states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    stream.close();
    expect(stream.state).toBe('closed');
  });

  it.skipIf(database !== 'postgres')('resumes on a restarted instance at the same address, with nothing lost or repeated', async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const send = (text: string) => createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token }).sendMessage(channelId, { type: 'text', data: { text } });
    // A second instance on the same database serves the stream; the test stops it and starts a new one on its port.
    const port = await freePort();
    const first = await p.t.startPeer();
    await first.app.listen({ port, host: '127.0.0.1' });
    const stream = createClient({ baseUrl: `http://127.0.0.1:${port}`, tokenProvider: ann.token }).stream({ backoff: { initialMs: 50, maxMs: 200 } });
    const seen = observe(stream);
    stream.connect();
    await stream.when('open');
    await send('before');
    await waitUntil(() => textsOf(seen.frames).length === 1, 'the first message');

    await first.app.close();
    await stream.when('reconnecting');
    for (const text of ['while down 1', 'while down 2']) await send(text);
    const second = await p.t.startPeer();
    await second.app.listen({ port, host: '127.0.0.1' });
    try {
      await stream.when('open');
      await send('after');
      await waitUntil(() => textsOf(seen.frames).includes('after'), 'the message after the restart');
      expect(textsOf(seen.frames)).toEqual(['before', 'while down 1', 'while down 2', 'after']);
    } finally {
      stream.close();
      await second.app.close();
    }
  });

  it('refreshes the token and resumes when the server ends the stream with 4001', async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const provider = await p.refreshingProvider(ann.userId);
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: provider }).stream();
    const seen = observe(stream);
    stream.connect();
    await stream.when('open');

    await p.revokeTokens(ann.userId);
    await stream.when('reconnecting');
    await stream.when('open');
    expect(provider.refreshes).toBe(1);

    const bobClient = createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token });
    await bobClient.sendMessage(channelId, { type: 'text', data: { text: 'after refresh' } });
    await waitUntil(() => textsOf(seen.frames).includes('after refresh'), 'a message on the refreshed stream');
    stream.close();
  });

  it('reconnects without since and emits reload when the position cannot be resumed (4009)', async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const urls: string[] = [];
    const factory = (url: string) => {
      urls.push(url);
      return new WebSocket(url) as unknown as WebSocketLike;
    };
    // A position past the newest event: the server refuses to resume it.
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token, webSocketFactory: factory }).stream({ since: 9_000_000_000 });
    const seen = observe(stream);
    stream.connect();
    await waitUntil(() => seen.reloads === 1, 'the reload event');
    expect(stream.state).toBe('open');
    expect(new URL(urls[0] as string).searchParams.get('since')).toBe('9000000000');
    expect(new URL(urls.at(-1) as string).searchParams.has('since')).toBe(false);

    const bobClient = createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token });
    await bobClient.sendMessage(channelId, { type: 'text', data: { text: 'after reload' } });
    await waitUntil(() => textsOf(seen.frames).includes('after reload'), 'a message after the reload');
    stream.close();
  });

  it('refreshes the token when the upgrade itself is refused with 401, then opens', async () => {
    const ann = await p.user('ann');
    const provider = await p.refreshingProvider(ann.userId);
    await p.revokeTokens(ann.userId);
    const errors: unknown[] = [];
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: provider }).stream({ backoff: { initialMs: 20 } });
    stream.on('error', (error) => errors.push(error));
    stream.connect();
    await stream.when('open');
    expect(provider.refreshes).toBe(1);
    expect(String(errors[0])).toContain('401');
    stream.close();
  });

  it('closes instead of retrying when the token provider has no token to give (signed out)', async () => {
    const errors: unknown[] = [];
    const signedOut = { getAccessToken: async () => Promise.reject(new ParleyError({ status: 401, code: 400100, message: 'Not signed in.' })) };
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: signedOut }).stream();
    stream.on('error', (error) => errors.push(error));
    stream.connect();
    await stream.when('closed');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 401, message: 'Not signed in.' });
  });

  it('stops for good and says so when the user is banned from the system (4003)', async () => {
    const ann = await p.user('ann');
    const stream = createClient({ baseUrl: p.baseUrl, tokenProvider: ann.token }).stream();
    const seen = observe(stream);
    stream.connect();
    await stream.when('open');
    expect((await p.admin.call('POST', '/api/v2/users/ban', { userId: ann.userId })).statusCode).toBe(200);
    await stream.when('closed');
    expect(seen.banned).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stream.state).toBe('closed');
  });
});

describe('SDK: reconnect backoff', () => {
  it('grows exponentially to its cap, with the top share random', () => {
    const options = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, options, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, options, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(3, options)));
    expect(spread.size).toBeGreaterThan(5);
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...spread)).toBeLessThanOrEqual(400);
  });
});
