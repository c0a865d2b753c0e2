import type { Socket } from 'node:net';
import type { TokenProvider } from '../../packages/client/src/index.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestAppOptions, type TestDatabase } from '../helpers/test-app.js';

/**
 * A real Parley listening on 127.0.0.1 (port chosen by the OS), for the SDK to call over HTTP and
 * WebSocket like any app; the admin side is driven through `inject`.
 */
export async function startParley(database: TestDatabase, env: Record<string, string> = {}, options: TestAppOptions = {}, port = 0) {
  const t = await startTestApp(database, env, options);
  const baseUrl = await t.app.listen({ port, host: '127.0.0.1' });
  const admin = adminClient(t);
  const upgraded = new Set<Socket>();
  // Observes upgrades only (the websocket plugin still handles them), so a test can cut streams.
  t.app.server.on('upgrade', (_request, socket: Socket) => {
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
  });

  async function mintToken(userId: string): Promise<string> {
    const response = await admin.call('POST', `/api/v2/users/${userId}/tokens`, {});
    if (response.statusCode !== 200) throw new Error(`mint token: ${response.statusCode} ${response.body}`);
    return (response.json() as { accessToken: string }).accessToken;
  }

  /** A new user and an access token minted for them. */
  async function user(prefix: string): Promise<{ userId: string; token: string }> {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: `${prefix} person` });
    return { userId, token: await mintToken(userId) };
  }

  /**
   * A token provider whose refresh mints a new token through the admin API, counting refreshes: what a
   * back end that signs its users in itself would hand the SDK.
   */
  async function refreshingProvider(userId: string): Promise<TokenProvider & { refreshes: number; current: string }> {
    const provider = {
      refreshes: 0,
      current: await mintToken(userId),
      getAccessToken: async () => provider.current,
      refresh: async () => {
        provider.refreshes++;
        provider.current = await mintToken(userId);
        return provider.current;
      },
    };
    return provider;
  }

  async function channel(userIds: string[]): Promise<string> {
    const channelId = t.uniqueId('room');
    await admin.createChannel(channelId, { userIds });
    return channelId;
  }

  /** Ends every open stream from the server's side without a close frame: a dropped connection (1006). */
  function dropStreams(): number {
    const count = upgraded.size;
    for (const socket of upgraded) socket.destroy();
    return count;
  }

  /** Revokes every token of a user straight in the database, as the CLI or another instance would. */
  async function revokeTokens(userId: string): Promise<void> {
    await t.storage.db.updateTable('tokens').set({ revoked_at: Date.now() }).where('user_id', '=', userId).execute();
  }

  return { t, baseUrl, admin, user, mintToken, refreshingProvider, channel, dropStreams, revokeTokens };
}

export type Parley = Awaited<ReturnType<typeof startParley>>;

/** Waits until `test` holds, polling; fails with `what` after `ms`. */
export async function waitUntil(test: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
