import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createLive, isFrame, type LiveMessage, type StreamState, textOf } from '../../packages/client/src/index.js';
import { testDatabases } from '../helpers/test-app.js';
import { type Parley, startParley, startTcpProxy, type TcpProxy, waitUntil } from './helpers.js';

const BURST = 500;
/** The SDK has this many of the burst's frames when the link goes dark. */
const BEFORE_CUT = 150;
/** Sends the server makes while the link is dark but not yet cut: frames it writes and the SDK never gets. */
const INTO_THE_DARK = 30;

const textOfItem = (item: LiveMessage) => (item.status === 'sent' ? textOf(item) : textOf(item.body));

describe.each(testDatabases)('SDK: a stream cut at the TCP level in the middle of a burst, on %s', (database) => {
  let p: Parley;
  let proxy: TcpProxy;

  beforeAll(async () => {
    // The burst goes through the client API from one user: its rate limits are off.
    p = await startParley(database, { PARLEY_CLIENT_RATE_SEND: '0', PARLEY_CLIENT_RATE_READ: '0' });
    proxy = await startTcpProxy(p.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await p?.t.close();
  });

  it(`resumes after the cut with all ${BURST} messages exactly once, in send order`, { timeout: 60_000 }, async () => {
    const ann = await p.user('ann');
    const bob = await p.user('bob');
    const channelId = await p.channel([ann.userId, bob.userId]);
    const bobClient = createClient({ baseUrl: p.baseUrl, tokenProvider: bob.token });

    // Ann's SDK reaches the server only through the proxy; a short backoff keeps the refused retries quick.
    const annClient = createClient({ baseUrl: proxy.baseUrl, tokenProvider: ann.token });
    const stream = annClient.stream({ backoff: { initialMs: 20, maxMs: 200 } });
    const states: StreamState[] = [];
    stream.on('state', (state) => states.push(state));
    const received: Array<{ id: number; messageId: string; text: string }> = [];
    stream.on('frame', (frame) => {
      if (!isFrame(frame, 'message.created') || frame.data.channelId !== channelId) return;
      received.push({ id: frame.id, messageId: frame.data.messageId, text: String(textOf(frame.data)) });
      // The link goes dark at once, from inside the SDK's own delivery: what the server writes next is lost.
      if (received.length === BEFORE_CUT) proxy.blackhole();
    });
    const messages = createLive(annClient, stream).messages(channelId);
    stream.connect();
    await waitUntil(() => stream.state === 'open', 'the stream to open');
    await messages.loadMore();
    expect(messages.items).toEqual([]);

    const sent: Array<{ messageId: string; text: string }> = [];
    let sendFailure: unknown = null;
    const sending = (async () => {
      for (let i = 1; i <= BURST; i++) {
        const text = `burst ${i}`;
        const page = await bobClient.sendMessage(channelId, { type: 'text', data: { text } });
        sent.push({ messageId: page.data.messages[0]?.messageId as string, text });
      }
    })().catch((error: unknown) => {
      sendFailure = error;
    });
    /** Waits for `test`; a failed send fails the test at once rather than at the deadline. */
    const waitWhileSending = async (test: () => boolean, what: string) => {
      await waitUntil(() => sendFailure !== null || test(), what, 20_000);
      if (sendFailure !== null) throw sendFailure;
    };

    await waitWhileSending(() => received.length >= BEFORE_CUT, `the first ${BEFORE_CUT} messages`);
    const sentAtDark = sent.length;
    await waitWhileSending(() => sent.length >= sentAtDark + INTO_THE_DARK && proxy.droppedBytes > 0, 'frames written into the dark link');
    // The network goes down: both sides of the stream's connection get a reset, and so does every retry.
    proxy.refuse(true);
    expect(proxy.cut()).toBeGreaterThanOrEqual(1);
    await waitUntil(() => stream.state === 'reconnecting', 'the SDK to notice the cut', 2000);
    const receivedAtCut = received.length;
    expect(receivedAtCut).toBeGreaterThanOrEqual(BEFORE_CUT);
    expect(receivedAtCut).toBeLessThan(sent.length);

    // The rest of the burst is sent while the SDK is away.
    await sending;
    if (sendFailure !== null) throw sendFailure;
    expect(sent).toHaveLength(BURST);
    expect(received).toHaveLength(receivedAtCut);
    expect(stream.state).toBe('reconnecting');

    proxy.refuse(false);
    await waitUntil(() => stream.state === 'open', 'the stream to open again');
    // The server sends what was missed before any live frame: once this one is in, the replay is over.
    await bobClient.sendMessage(channelId, { type: 'text', data: { text: 'after the reconnect' } });
    await waitUntil(() => received.at(-1)?.text === 'after the reconnect', 'the message sent after the reconnect', 20_000);
    const burst = received.slice(0, -1);

    // The event handler: every message once, in send order, with growing frame ids.
    expect(burst.map((frame) => frame.messageId)).toEqual(sent.map((message) => message.messageId));
    expect(burst.map((frame) => frame.text)).toEqual(sent.map((message) => message.text));
    const ids = received.map((frame) => frame.id);
    expect(ids.every((id, index) => index === 0 || id > (ids[index - 1] as number))).toBe(true);

    // The live collection: the same messages, once each, in send order.
    const items = messages.items.slice(0, -1);
    expect(items.map((item) => (item.status === 'sent' ? item.messageId : item.localId))).toEqual(sent.map((message) => message.messageId));
    expect(messages.items.map(textOfItem)).toEqual([...sent.map((message) => message.text), 'after the reconnect']);

    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    messages.close();
    stream.close();
  });
});
