import { trimBase } from '../auth/oauth.js';
import type { TokenProvider } from '../auth/token-provider.js';
import { Emitter } from '../emitter.js';
import { ParleyError } from '../errors.js';
import { type BackoffOptions, backoffDelay } from './backoff.js';
import { CloseCode, isKnownFrame, parseFrame, type StreamFrame } from './frames.js';
import { defaultWebSocketFactory, frameText, type WebSocketFactory, type WebSocketLike } from './socket.js';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface StreamEvents extends Record<string, unknown> {
  /**
   * A frame, once: never one with an id at or below one already delivered. Only frames of the types the
   * SDK knows (`FrameType`) are delivered; the position of any other still counts for resuming.
   */
  frame: StreamFrame;
  state: StreamState;
  /** The stream could not resume (4009): reload state through the API; the stream is live again. */
  reload: undefined;
  /** The user is banned from the system (4003): the stream stays closed. */
  banned: undefined;
  /** A problem on the way: a socket that failed to open, or no token to be had (then the stream closes). */
  error: unknown;
}

export interface StreamOptions {
  baseUrl: string;
  tokenProvider: TokenProvider;
  webSocketFactory?: WebSocketFactory;
  /** Start after this frame id (a stored position), instead of now. */
  since?: number;
  backoff?: BackoffOptions;
  random?: () => number;
}

/**
 * The real-time stream (/client/v1/stream): connects, reconnects with exponential backoff and jitter,
 * resumes from the last frame id it delivered (`since`), and drops any frame at or below it, so a
 * reconnect neither loses nor repeats an event. Close codes: 4001 and 1008 refresh the token, then
 * reconnect; 4003 stops; 4009 reconnects without `since` and emits `reload` once live again.
 */
export class ParleyStream extends Emitter<StreamEvents> {
  #state: StreamState = 'closed';
  #lastEventId: number | null;
  #socket: WebSocketLike | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #failures = 0;
  #wanted = false;
  #reloadWhenOpen = false;
  #refreshBeforeConnect = false;
  readonly #options: StreamOptions;

  constructor(options: StreamOptions) {
    super();
    this.#options = options;
    this.#lastEventId = options.since ?? null;
  }

  get state(): StreamState {
    return this.#state;
  }

  /** The id of the last frame delivered: store it to resume a later stream with `since`. */
  get lastEventId(): number | null {
    return this.#lastEventId;
  }

  /** Opens the stream (again after `close()`); a stream already wanted open is left alone. */
  connect(): this {
    if (this.#wanted) return this;
    this.#wanted = true;
    this.#failures = 0;
    this.#setState('connecting');
    void this.#open();
    return this;
  }

  /** Closes the stream; it stays closed until `connect()`. */
  close(): void {
    this.#wanted = false;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const socket = this.#socket;
    this.#socket = null;
    socket?.close(1000, 'closed by the client');
    this.#setState('closed');
  }

  /** Resolves when the state is `state` (now or later). */
  when(state: StreamState): Promise<void> {
    if (this.#state === state) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.on('state', (next) => {
        if (next !== state) return;
        off();
        resolve();
      });
    });
  }

  #setState(state: StreamState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.emit('state', state);
  }

  async #open(): Promise<void> {
    const { tokenProvider } = this.#options;
    let token: string;
    let socket: WebSocketLike;
    try {
      token = await tokenProvider.getAccessToken();
      if (this.#refreshBeforeConnect && tokenProvider.refresh) token = await tokenProvider.refresh(token);
      this.#refreshBeforeConnect = false;
      if (!this.#wanted) return;
      socket = await (this.#options.webSocketFactory ?? defaultWebSocketFactory)(this.#url(token));
    } catch (error) {
      this.emit('error', error);
      // No token to be had (signed out, refresh refused): retrying cannot help until the app signs in.
      if (error instanceof ParleyError && error.status === 401) this.#stop();
      else this.#retry();
      return;
    }
    if (!this.#wanted) {
      socket.close(1000, 'closed by the client');
      return;
    }
    this.#socket = socket;
    let opened = false;
    let refusal = '';
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      opened = true;
      this.#failures = 0;
      this.#setState('open');
      if (this.#reloadWhenOpen) {
        this.#reloadWhenOpen = false;
        this.emit('reload', undefined);
      }
    };
    socket.onmessage = (event) => {
      if (this.#socket === socket) this.#deliver(frameText(event.data));
    };
    socket.onerror = (event) => {
      // `ws` names the refused upgrade's status ("Unexpected server response: 401"); browsers say nothing.
      refusal = String((event as { message?: unknown } | null)?.message ?? '');
    };
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#closed(event.code, opened, refusal);
    };
  }

  #url(token: string): string {
    const url = new URL(`${trimBase(this.#options.baseUrl)}/client/v1/stream`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', token);
    if (this.#lastEventId !== null) url.searchParams.set('since', String(this.#lastEventId));
    return url.toString();
  }

  #deliver(text: string): void {
    const frame = parseFrame(text);
    if (frame === null) return;
    // Ids grow: one at or below the last delivered is a replay already seen (resume overlap).
    if (this.#lastEventId !== null && frame.id <= this.#lastEventId) return;
    this.#lastEventId = frame.id;
    // A type this SDK does not know (from a newer server) has no data type to hand listeners.
    if (isKnownFrame(frame)) this.emit('frame', frame);
  }

  #closed(code: number, opened: boolean, refusal: string): void {
    if (!this.#wanted) return;
    if (code === CloseCode.banned || /\b403\b/.test(refusal)) {
      this.#stop();
      this.emit('banned', undefined);
      return;
    }
    if (code === CloseCode.tokenEnded || code === CloseCode.unauthorized || /\b401\b/.test(refusal)) this.#refreshBeforeConnect = true;
    if (code === CloseCode.resync) {
      // The position cannot be resumed: start fresh, and forget it so new (lower) ids are not dropped.
      this.#lastEventId = null;
      this.#reloadWhenOpen = true;
    }
    if (!opened) this.emit('error', new Error(refusal || `the stream closed before opening (${code})`));
    this.#retry(opened);
  }

  #stop(): void {
    this.#wanted = false;
    this.#setState('closed');
  }

  /** Waits, then reconnects. Right after an open stream drops, the first retry does not wait. */
  #retry(wasOpen = false): void {
    if (!this.#wanted) return;
    this.#setState('reconnecting');
    this.#failures++;
    const delay = wasOpen && this.#failures === 1 ? 0 : backoffDelay(this.#failures, this.#options.backoff, this.#options.random);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#open();
    }, delay);
  }
}
