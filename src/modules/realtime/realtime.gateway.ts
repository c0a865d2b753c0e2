import type { WebSocket } from 'ws';
import type { OutboxEvent } from '../../events/outbox.js';
import type { Clock } from '../../clock.js';
import type { RealtimeStore } from './realtime.store.js';

/**
 * The sockets held by this instance and the routing of outbox events to them. Every instance runs
 * its own gateway fed by its own outbox relay, so an event committed anywhere reaches sockets
 * everywhere; the database is the only copy of an event, which is what makes resume exact.
 */
export interface GatewayOptions {
  /**
   * Ping interval; a socket that did not answer the previous ping is dropped. Each beat also checks
   * that every socket's token and user may still read (see `recheck`).
   */
  heartbeatMs: number;
  /** A socket whose unsent bytes pass this is disconnected rather than allowed to grow memory. */
  maxBufferedBytes: number;
  /** At most this many missed events are replayed on resume; beyond it the client must resync. */
  maxResumeEvents: number;
}

export const DEFAULT_GATEWAY_OPTIONS: GatewayOptions = { heartbeatMs: 30_000, maxBufferedBytes: 1024 * 1024, maxResumeEvents: 10_000 };

/** Close codes (4000-4999 are the application's). */
export const CLOSE_SLOW_CONSUMER = 4008;
/** How long a replayed frame may wait to be written out before the client counts as not reading. */
const REPLAY_WRITE_TIMEOUT_MS = 30_000;
export const CLOSE_RESYNC = 4009;
/** The token expired or was revoked: sign in again. */
export const CLOSE_TOKEN_ENDED = 4001;
/** The user is banned from the system. */
export const CLOSE_BANNED = 4003;

interface Connection {
  userId: string;
  /** The token the stream was opened with (its row id), checked again at every heartbeat. */
  tokenId: string;
  socket: WebSocket;
  channels: Set<string>;
  lastSentId: number;
  /** While the missed events are read, live ones wait here. */
  pending: OutboxEvent[] | null;
  /**
   * While the user's channels are read: the membership changes routed meanwhile, in order, applied
   * after the read's joins. A removal routed before the socket joined would otherwise be undone by
   * a join from a read taken before it committed.
   */
  changes: Array<{ channelId: string; member: boolean }> | null;
  alive: boolean;
}

interface MemberChange {
  userIds?: unknown;
  channel?: { isClosed?: unknown };
}

function usersOf(event: OutboxEvent): string[] {
  const ids = (event.data as MemberChange | null)?.userIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

export function createRealtimeGateway(deps: { store: RealtimeStore; clock: Clock; options?: Partial<GatewayOptions>; onError?: (error: unknown) => void }) {
  const options = { ...DEFAULT_GATEWAY_OPTIONS, ...deps.options };
  const byChannel = new Map<string, Set<Connection>>();
  const byUser = new Map<string, Set<Connection>>();
  const all = new Set<Connection>();

  function join(connection: Connection, channelId: string): void {
    connection.changes?.push({ channelId, member: true });
    connection.channels.add(channelId);
    const set = byChannel.get(channelId) ?? new Set();
    set.add(connection);
    byChannel.set(channelId, set);
  }

  function leave(connection: Connection, channelId: string): void {
    connection.changes?.push({ channelId, member: false });
    connection.channels.delete(channelId);
    const set = byChannel.get(channelId);
    set?.delete(connection);
    if (set?.size === 0) byChannel.delete(channelId);
  }

  function drop(connection: Connection): void {
    if (!all.delete(connection)) return;
    for (const channelId of connection.channels) leave(connection, channelId);
    const mine = byUser.get(connection.userId);
    mine?.delete(connection);
    if (mine?.size === 0) byUser.delete(connection.userId);
  }

  const frames = new WeakMap<OutboxEvent, Buffer>();
  /**
   * One serialization and one UTF-8 encoding per event, however many sockets receive it: `ws` would
   * otherwise encode a string anew for every socket, which dominates a fan-out to a large channel.
   */
  function frameOf(event: OutboxEvent): Buffer {
    let frame = frames.get(event);
    if (frame === undefined) {
      frame = Buffer.from(JSON.stringify({ id: event.id, type: event.type, data: event.data }), 'utf8');
      frames.set(event, frame);
    }
    return frame;
  }

  function send(connection: Connection, event: OutboxEvent): void {
    if (connection.pending) {
      connection.pending.push(event);
      // A replay this far behind will not catch up: the client reloads instead of the server holding more.
      if (connection.pending.length > options.maxResumeEvents) {
        connection.socket.close(CLOSE_RESYNC, 'too many events while resuming: reload, then reconnect without since');
        drop(connection);
      }
      return;
    }
    if (event.id <= connection.lastSentId) return;
    connection.lastSentId = event.id;
    // binary: false keeps it a text frame, which is what clients parse as JSON.
    connection.socket.send(frameOf(event), { binary: false });
    if (connection.socket.bufferedAmount > options.maxBufferedBytes) {
      // A peer that does not read must not hold the server's memory: cut it; it resumes from its last id.
      connection.socket.terminate();
      drop(connection);
    }
  }

  /** Membership changes move sockets between channels: joiners before delivery, leavers after. */
  function route(event: OutboxEvent): void {
    if (event.recipientId) {
      for (const connection of byUser.get(event.recipientId) ?? []) send(connection, event);
      if (!event.channelId) return;
    }
    if (!event.channelId) return;
    const channelId = event.channelId;
    if (event.type === 'member.added') {
      for (const userId of usersOf(event)) for (const connection of byUser.get(userId) ?? []) join(connection, channelId);
    }
    // Only member and channel events are read: parsing every message's payload costs the create path.
    const closed = (event.type === 'member.removed' || event.type === 'channel.updated') && (event.data as MemberChange | null)?.channel?.isClosed === true;
    if (event.type === 'member.removed' && closed) {
      // The removals of a close: everyone leaves, so each slice goes to the users it names, not to
      // every socket of the channel (which already had the channel.updated of the close).
      for (const userId of usersOf(event)) for (const connection of byUser.get(userId) ?? []) send(connection, event);
      return;
    }
    for (const connection of [...(byChannel.get(channelId) ?? [])]) send(connection, event);
    if (event.type === 'member.removed') {
      for (const userId of usersOf(event)) for (const connection of byUser.get(userId) ?? []) leave(connection, channelId);
    }
    if (event.type === 'channel.updated' && closed) {
      for (const connection of [...(byChannel.get(channelId) ?? [])]) leave(connection, channelId);
      // Sockets still reading their channels are in no channel's set yet.
      for (const connection of all) if (connection.changes) leave(connection, channelId);
    }
  }

  /**
   * Sends one replayed event; past half the buffer limit, waits until the frame is written out, at
   * most REPLAY_WRITE_TIMEOUT_MS (then the client is not reading: cut, it resumes from its last id).
   * Answers whether the connection is still there.
   */
  async function replayOne(connection: Connection, event: OutboxEvent): Promise<boolean> {
    if (!all.has(connection)) return false;
    if (event.id <= connection.lastSentId) return true;
    connection.lastSentId = event.id;
    const { socket } = connection;
    if (socket.bufferedAmount <= options.maxBufferedBytes / 2) {
      socket.send(frameOf(event), { binary: false });
      return true;
    }
    const written = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), REPLAY_WRITE_TIMEOUT_MS);
      socket.send(frameOf(event), { binary: false }, (error) => {
        clearTimeout(timer);
        resolve(error == null);
      });
    });
    if (!written && all.has(connection)) end(connection, CLOSE_SLOW_CONSUMER, 'not reading');
    return written && all.has(connection);
  }

  function end(connection: Connection, code: number, reason: string): void {
    connection.socket.close(code, reason);
    drop(connection);
  }

  /**
   * A stream is authorized once, at its upgrade; what changes later is caught here. A ban made on
   * this instance ends the user's streams at once (`disconnectBanned`); a ban made on another
   * instance, and a token that expired or was revoked anywhere, end them at the next heartbeat: two
   * queries a beat for all the sockets, whatever their number.
   */
  let rechecking = false;
  async function recheck(): Promise<void> {
    if (rechecking || all.size === 0) return;
    rechecking = true;
    try {
      const connections = [...all];
      const [ended, banned] = await Promise.all([
        deps.store.endedTokens([...new Set(connections.map((connection) => connection.tokenId))], deps.clock.now()),
        deps.store.bannedUsers([...new Set(connections.map((connection) => connection.userId))]),
      ]);
      for (const connection of connections) {
        if (!all.has(connection)) continue;
        if (banned.has(connection.userId)) end(connection, CLOSE_BANNED, 'banned');
        else if (ended.has(connection.tokenId)) end(connection, CLOSE_TOKEN_ENDED, 'token expired or revoked');
      }
    } catch (error) {
      // Database trouble: the next beat checks again.
      deps.onError?.(error);
    } finally {
      rechecking = false;
    }
  }

  const heartbeat = setInterval(() => {
    for (const connection of all) {
      if (!connection.alive) {
        connection.socket.terminate();
        drop(connection);
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
    void recheck();
  }, options.heartbeatMs);
  heartbeat.unref();

  return {
    /**
     * Registers a socket and first replays, from the database, what happened after `since` (a frame id
     * the client saw, or where a fresh stream starts): live events wait until the replay is sent.
     */
    async attach(principal: { userId: string; tokenId: string }, socket: WebSocket, since: number): Promise<void> {
      const { userId, tokenId } = principal;
      const connection: Connection = { userId, tokenId, socket, channels: new Set(), lastSentId: 0, pending: [], changes: [], alive: true };
      socket.on('pong', () => {
        connection.alive = true;
      });
      socket.on('close', () => drop(connection));
      socket.on('error', () => drop(connection));
      // Registered before reading, so nothing committed from here on can fall between the two.
      all.add(connection);
      const mine = byUser.get(userId) ?? new Set();
      mine.add(connection);
      byUser.set(userId, mine);
      const channelIds = await deps.store.channelIdsOf(userId);
      // Closed while its channels were read: dropped already, and joining now would keep the dead
      // socket in those channels' sets for good (found in session 9: 20 of 20 such sockets leaked).
      if (!all.has(connection)) return;
      const changes = connection.changes ?? [];
      connection.changes = null;
      for (const channelId of channelIds) join(connection, channelId);
      // Changes routed while the channels were read came after the read or are already in it: in
      // order, the last one for a channel is where the user stands.
      for (const change of changes) (change.member ? join : leave)(connection, change.channelId);

      connection.lastSentId = since;
      const [missed, newest] = await Promise.all([deps.store.eventsFor(userId, since, options.maxResumeEvents + 1), deps.store.newestEventId()]);
      if (!all.has(connection)) return;
      // A position past every event (another deployment's, or made up) would silently hold back
      // every frame until the stream passed it: the client must resync instead.
      if (missed.length > options.maxResumeEvents || since > newest) {
        socket.close(CLOSE_RESYNC, since > newest ? 'since is past the newest event: reload, then reconnect without since' : 'too many missed events: reload, then reconnect without since');
        drop(connection);
        return;
      }
      // The replay waits for the client to read, rather than tripping the slow-consumer limit meant
      // for live frames: a 5 MB backlog cut a healthy client off part-way (1006) before session 9.
      for (const event of missed) {
        if (!(await replayOne(connection, event))) return;
      }
      // Live events that came while the replay waited for the client are paced the same way: sent
      // in one burst, they tripped the slow-consumer cut-off on a client that was reading.
      for (let waiting = connection.pending ?? []; waiting.length > 0; waiting = connection.pending ?? []) {
        connection.pending = [];
        for (const event of waiting) {
          if (!(await replayOne(connection, event))) return;
        }
      }
      connection.pending = null;
    },

    deliver(events: OutboxEvent[]): void {
      for (const event of events) route(event);
    },

    /** Ends the streams of a user just banned on this instance (other instances: the next heartbeat). */
    disconnectBanned(userId: string): void {
      for (const connection of [...(byUser.get(userId) ?? [])]) end(connection, CLOSE_BANNED, 'banned');
    },

    get connectionCount(): number {
      return all.size;
    },

    close(): void {
      clearInterval(heartbeat);
      for (const connection of all) connection.socket.close(1001, 'server shutting down');
      all.clear();
      byChannel.clear();
      byUser.clear();
    },
  };
}

export type RealtimeGateway = ReturnType<typeof createRealtimeGateway>;
