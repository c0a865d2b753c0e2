import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type LiveSnapshot } from '../../packages/client/src/index.js';
import { type SnapshotSource, useChannels, useLive, useLiveSnapshot, useMessages } from '../../packages/client/src/react.js';
import { type Parley, startParley } from './helpers.js';

/** A collection whose snapshot is set by hand, to read through the hook. */
function fixed(items: string[]): SnapshotSource<string> {
  const snapshot: LiveSnapshot<string> = { items, hasMore: false, loading: false, error: null };
  return { subscribe: () => () => undefined, getSnapshot: () => snapshot };
}

/**
 * The React bindings rendered on the server (react-dom/server): what a snapshot shows, and that
 * rendering makes no collection and sends nothing (collections are made in effects, which run in
 * browsers only). The repository holds no DOM for effects to run in.
 */
describe('SDK: React bindings', () => {
  let p: Parley;

  beforeAll(async () => {
    p = await startParley('sqlite');
  });
  afterAll(async () => {
    await p.t.close();
  });

  it('render a collection snapshot, and the empty one without a collection', () => {
    function Items(props: { source: SnapshotSource<string> | null }) {
      const snapshot: LiveSnapshot<string> = useLiveSnapshot(props.source);
      return createElement('ul', { 'data-more': String(snapshot.hasMore) }, ...snapshot.items.map((item) => createElement('li', { key: item }, item)));
    }
    expect(renderToString(createElement(Items, { source: fixed(['a', 'b']) }))).toBe('<ul data-more="false"><li>a</li><li>b</li></ul>');
    expect(renderToString(createElement(Items, { source: null }))).toBe('<ul data-more="false"></ul>');
  });

  it('render channels and messages empty on the server, with no request made', async () => {
    const ann = await p.user('ann');
    let requests = 0;
    const client = createClient({
      baseUrl: p.baseUrl,
      tokenProvider: ann.token,
      fetch: (request) => {
        requests++;
        return fetch(request);
      },
    });
    const stream = client.stream();
    function App() {
      const live = useLive(client, stream);
      const { items: channels, loading } = useChannels(live);
      const { items: messages, messages: collection } = useMessages(live, 'general');
      return createElement('p', null, `${channels.length} channels, ${messages.length} messages, ${String(loading)}, ${collection === null}`);
    }
    expect(renderToString(createElement(App))).toBe('<p>0 channels, 0 messages, false, true</p>');
    expect(requests).toBe(0);
    expect(stream.state).toBe('closed');
  });
});
