import { createClient, createLive, createSignIn, type LiveMessage, type LiveMessages, type ParleyClient, textOf, type TokenSession } from '../../src/index.js';

/** A chat page built only on @parley/client: sign-in, channels with unread counts, messages, sending. */
const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
const baseUrl = meta('parley-server');
const signIn = createSignIn({ baseUrl, clientId: meta('parley-client-id'), redirectUri: `${location.origin}${location.pathname}` });
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function session(): Promise<TokenSession | null> {
  if (new URLSearchParams(location.search).has('state')) {
    const { session } = await signIn.handleCallback(location.href);
    history.replaceState(null, '', location.pathname);
    return session;
  }
  return signIn.restore();
}

function messageText(item: LiveMessage): string {
  if (item.status !== 'sent') return `${textOf(item.body) ?? ''} (${item.status})`;
  if (item.isDeleted) return '(deleted)';
  return `${item.userId}: ${textOf(item) ?? `(${item.type})`}`;
}

function start(client: ParleyClient): void {
  const stream = client.stream().connect();
  const live = createLive(client, stream);
  stream.on('state', (state) => {
    $('state').textContent = state;
  });
  const channels = live.channels();
  let current: { id: string; messages: LiveMessages } | null = null;

  const open = (channelId: string) => {
    current?.messages.close();
    const messages = live.messages(channelId, { sendOptions: { retry: { rateLimited: true, maxAttempts: 3 } } });
    const marker = live.readMarker(channelId, { onMoved: (segment) => channels.markedRead(channelId, segment) });
    current = { id: channelId, messages };
    $('composer').hidden = false;
    messages.subscribe(({ items, hasMore }) => {
      const list = $('messages');
      list.replaceChildren(
        ...items.map((item) => {
          const li = document.createElement('li');
          li.textContent = messageText(item);
          li.className = item.status;
          return li;
        }),
      );
      $('older').hidden = !hasMore;
      const newest = [...items].reverse().find((item) => item.status === 'sent');
      if (newest?.status === 'sent') void marker.markRead(newest.channelSegment);
    });
    void messages.loadMore();
    renderChannels();
  };

  const renderChannels = () => {
    $('channels').replaceChildren(
      ...channels.items.map((entry) => {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = entry.channel.displayName || entry.channel.channelId;
        const badge = document.createElement('span');
        badge.textContent = entry.unreadCount > 0 ? String(entry.unreadCount) : '';
        button.append(badge);
        button.setAttribute('aria-current', String(current?.id === entry.channel.channelId));
        button.onclick = () => open(entry.channel.channelId);
        return button;
      }),
    );
  };
  channels.subscribe(renderChannels);
  void channels.loadMore();

  $('older').onclick = () => void current?.messages.loadMore();
  $<HTMLFormElement>('composer').onsubmit = (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>('text');
    if (current && input.value.trim() !== '') void current.messages.send({ type: 'text', data: { text: input.value } });
    input.value = '';
  };
}

const signedIn = await session();
if (signedIn) start(createClient({ baseUrl, tokenProvider: signedIn }));
else {
  const button = $('sign-in');
  button.hidden = false;
  button.onclick = async () => location.assign(await signIn.authorizeUrl());
}
