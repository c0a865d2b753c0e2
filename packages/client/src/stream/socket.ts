/**
 * The part of a WebSocket the stream uses: the browser's WebSocket, Node 22's global one and the `ws`
 * package all have it.
 */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

/** Opens a socket to a URL (ws:// or wss://). */
export type WebSocketFactory = (url: string) => WebSocketLike | Promise<WebSocketLike>;

type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * The global WebSocket when there is one (browsers, Node 22), else the `ws` package (Node 20), loaded
 * only then so browser bundles never need it.
 */
export const defaultWebSocketFactory: WebSocketFactory = async (url) => {
  const Native = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (Native) return new Native(url);
  let loaded: { default?: unknown; WebSocket?: unknown };
  try {
    loaded = (await import('ws')) as { default?: unknown; WebSocket?: unknown };
  } catch {
    throw new Error('No WebSocket on this platform: install the `ws` package, or pass `webSocketFactory`.');
  }
  const Ws = (loaded.WebSocket ?? loaded.default) as WebSocketConstructor;
  return new Ws(url);
};

/** The text of a frame's data: a string, or bytes (a Buffer under `ws`). */
export function frameText(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  if (ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return String(data);
}
