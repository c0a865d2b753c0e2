import net, { type Socket } from 'node:net';
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

/**
 * A TCP proxy in front of a server, for cutting a client's connections at the TCP level while the server
 * keeps running: `blackhole()` keeps reading what the server writes but drops it (the server counts it
 * as sent, the client never gets it), `cut()` resets both sides of every connection, and `refuse()`
 * resets each connection as it arrives, like a network that is down.
 */
export async function startTcpProxy(target: string) {
  const { hostname, port } = new URL(target);
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let refusing = false;
  let blackholing = false;
  let droppedBytes = 0;

  const server = net.createServer((client) => {
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    const pair = { client, upstream };
    pairs.add(pair);
    forward(client, upstream, () => false);
    forward(upstream, client, (chunk) => {
      if (!blackholing) return false;
      droppedBytes += chunk.length;
      return true;
    });
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', drop);
      socket.on('close', drop);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    get droppedBytes(): number {
      return droppedBytes;
    },
    /** Drops what the server sends from here on, on every connection, without the client noticing. */
    blackhole(): void {
      blackholing = true;
    },
    /** Resets both sides of every connection (an RST each way); answers how many there were. */
    cut(): number {
      const count = pairs.size;
      for (const { client, upstream } of [...pairs]) {
        client.resetAndDestroy();
        upstream.resetAndDestroy();
      }
      blackholing = false;
      return count;
    },
    /** While on, every connection is reset as it arrives. */
    refuse(on: boolean): void {
      refusing = on;
    },
    close(): Promise<void> {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type TcpProxy = Awaited<ReturnType<typeof startTcpProxy>>;

/** Copies `from` to `to` with backpressure, except the chunks `swallow` keeps. */
function forward(from: Socket, to: Socket, swallow: (chunk: Buffer) => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (swallow(chunk) || to.destroyed) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
  from.on('end', () => to.end());
}
