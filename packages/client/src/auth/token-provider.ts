/**
 * Where the SDK gets the access token it sends. `getAccessToken` answers a token to use now (a provider
 * that knows expiry refreshes first); `refresh`, when present, is called after the server refused
 * `rejected` (401, or a stream closed with 4001) and answers a new token. A provider without `refresh`
 * leaves the refusal to the caller.
 */
export interface TokenProvider {
  getAccessToken(): Promise<string>;
  refresh?(rejected: string): Promise<string>;
}

/** A provider for a token the app already holds (a token minted by its back end, a bot's token). */
export function staticToken(token: string): TokenProvider {
  return { getAccessToken: async () => token };
}

/** The Web Storage shape (`localStorage`, `sessionStorage`): what the SDK keeps tokens and sign-in state in. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A storage that lives as long as the page or process: the default where no Web Storage exists. */
export function memoryStorage(): KeyValueStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}

/** The Web Locks API's `request(name, callback)`, the part the SDK uses to refresh once across tabs. */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

interface BrowserGlobals {
  navigator?: { locks?: LockManagerLike };
  localStorage?: KeyValueStorage;
  sessionStorage?: KeyValueStorage;
}

const browser = globalThis as BrowserGlobals;

/** `navigator.locks` when the platform has it (browsers), else null (Node). */
export function platformLocks(): LockManagerLike | null {
  const locks = browser.navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/** `localStorage` or `sessionStorage` when the platform has it (and it can be used), else null. */
export function platformStorage(kind: 'localStorage' | 'sessionStorage'): KeyValueStorage | null {
  try {
    return browser[kind] ?? null;
  } catch {
    // A browser that blocks storage (privacy settings, sandboxed frames) throws on access.
    return null;
  }
}
