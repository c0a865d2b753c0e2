import type { WebSocket } from 'ws';
import type { OutboxEvent } from '../../events/outbox.js';
import type { Clock } from '../../clock.js';
import { type Connection, Connections, routeEvent } from './realtime.connections.js';
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

/** What the gateway's steps share: its sockets, its options and where it reads. */
interface Gateway {
  connections: Connections;
  options: GatewayOptions;
  store: RealtimeStore;
  clock: Clock;
  onError: ((error: unknown) => void) | undefined;
  /** One serialization per event (see frameOf). */
  frames: WeakMap<OutboxEvent, Buffer>;
  /** A heartbeat's check of tokens and bans is still running. */
  rechecking: boolean;
}

/**
 * One serialization and one UTF-8 encoding per event, however many sockets receive it: `ws` would
 * otherwise encode a string anew for every socket, which dominates a fan-out to a large channel.
 */
function frameOf(gateway: Gateway, event: OutboxEvent): Buffer {
  let frame = gateway.frames.get(event);
  if (frame === undefined) {
    frame = Buffer.from(JSON.stringify({ id: event.id, type: event.type, data: event.data }), 'utf8');
    gateway.frames.set(event, frame);
  }
  return frame;
}

function end(gateway: Gateway, connection: Connection, code: number, reason: string): void {
  connection.socket.close(code, reason);
  gateway.connections.drop(connection);
}

/** Sends a live event, or queues it while the connection's replay runs. */
function send(gateway: Gateway, connection: Connection, event: OutboxEvent): void {
  const { options, connections } = gateway;
  if (connection.pending) {
    connection.pending.push(event);
    // A replay this far behind will not catch up: the client reloads instead of the server holding more.
    if (connection.pending.length > options.maxResumeEvents)
      end(gateway, connection, CLOSE_RESYNC, 'too many events while resuming: reload, then reconnect without since');
    return;
  }
  if (event.id <= connection.lastSentId) return;
  connection.lastSentId = event.id;
  // binary: false keeps it a text frame, which is what clients parse as JSON.
  connection.socket.send(frameOf(gateway, event), { binary: false });
  if (connection.socket.bufferedAmount > options.maxBufferedBytes) {
    // A peer that does not read must not hold the server's memory: cut it; it resumes from its last id.
    connection.socket.terminate();
    connections.drop(connection);
  }
}

/**
 * Sends one replayed event; past half the buffer limit, waits until the frame is written out, at
 * most REPLAY_WRITE_TIMEOUT_MS (then the client is not reading: cut, it resumes from its last id).
 * Answers whether the connection is still there.
 */
async function replayOne(gateway: Gateway, connection: Connection, event: OutboxEvent): Promise<boolean> {
  const { connections } = gateway;
  if (!connections.has(connection)) return false;
  if (event.id <= connection.lastSentId) return true;
  connection.lastSentId = event.id;
  const { socket } = connection;
  if (socket.bufferedAmount <= gateway.options.maxBufferedBytes / 2) {
    socket.send(frameOf(gateway, event), { binary: false });
    return true;
  }
  const written = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), REPLAY_WRITE_TIMEOUT_MS);
    socket.send(frameOf(gateway, event), { binary: false }, (error) => {
      clearTimeout(timer);
      resolve(error == null);
    });
  });
  if (!written && connections.has(connection)) end(gateway, connection, CLOSE_SLOW_CONSUMER, 'not reading');
  return written && connections.has(connection);
}

/**
 * A stream is authorized once, at its upgrade; what changes later is caught here. A ban or a
 * revocation told through the notices ends the user's streams at once (`disconnectBanned`,
 * `endRevoked`); one the notices do not carry (the bus is down, the CLI or SQL revoked it) and a
 * token that expired end them at the next heartbeat: two queries a beat for all the sockets,
 * whatever their number.
 */
async function recheck(gateway: Gateway): Promise<void> {
  const { connections } = gateway;
  if (gateway.rechecking || connections.size === 0) return;
  gateway.rechecking = true;
  try {
    const all = [...connections.all];
    const [ended, banned] = await Promise.all([
      gateway.store.endedTokens([...new Set(all.map((connection) => connection.tokenId))], gateway.clock.now()),
      gateway.store.bannedUsers([...new Set(all.map((connection) => connection.userId))]),
    ]);
    for (const connection of all) {
      if (!connections.has(connection)) continue;
      if (banned.has(connection.userId)) end(gateway, connection, CLOSE_BANNED, 'banned');
      else if (ended.has(connection.tokenId)) end(gateway, connection, CLOSE_TOKEN_ENDED, 'token expired or revoked');
    }
  } catch (error) {
    // Database trouble: the next beat checks again.
    gateway.onError?.(error);
  } finally {
    gateway.rechecking = false;
  }
}

/**
 * Ends, with CLOSE_TOKEN_ENDED, the user's streams whose token no longer authorizes: the tokens are
 * read after the revocation committed, so a revoked token or grant ends only the streams opened with
 * it, and signing out everywhere ends all of them. One query, and none for a user without streams here.
 */
async function endRevoked(gateway: Gateway, userId: string): Promise<void> {
  const { connections } = gateway;
  const mine = [...connections.ofUser(userId)];
  if (mine.length === 0) return;
  try {
    const ended = await gateway.store.endedTokens([...new Set(mine.map((connection) => connection.tokenId))], gateway.clock.now());
    for (const connection of mine) {
      if (connections.has(connection) && ended.has(connection.tokenId)) end(gateway, connection, CLOSE_TOKEN_ENDED, 'token expired or revoked');
    }
  } catch (error) {
    // Database trouble: the heartbeat checks these streams again.
    gateway.onError?.(error);
  }
}

/** A ping to every socket; one that did not answer the previous ping is dropped. */
function beat(gateway: Gateway): void {
  for (const connection of gateway.connections.all) {
    if (!connection.alive) {
      connection.socket.terminate();
      gateway.connections.drop(connection);
      continue;
    }
    connection.alive = false;
    connection.socket.ping();
  }
  void recheck(gateway);
}

/** Puts a just-registered socket in its user's channels; answers false when it closed meanwhile. */
async function joinChannelsOf(gateway: Gateway, connection: Connection): Promise<boolean> {
  const { connections } = gateway;
  const channelIds = await gateway.store.channelIdsOf(connection.userId);
  // Closed while its channels were read: dropped already, and joining now would keep the dead
  // socket in those channels' sets for good.
  if (!connections.has(connection)) return false;
  const changes = connection.changes ?? [];
  connection.changes = null;
  for (const channelId of channelIds) connections.join(connection, channelId);
  // Changes routed while the channels were read came after the read or are already in it: in
  // order, the last one for a channel is where the user stands.
  for (const change of changes) {
    if (change.member) connections.join(connection, change.channelId);
    else connections.leave(connection, change.channelId);
  }
  return true;
}

/**
 * Why a resume from `since` cannot be served, or null. A position past every event (another
 * deployment's, or made up) would silently hold back every frame until the stream passed it; one
 * before the events retention removed would silently skip them: the client must reload instead.
 */
function resumeRefusal(since: number, missed: number, newest: number, pruned: number, maxResumeEvents: number): string | null {
  if (since > newest) return 'since is past the newest event: reload, then reconnect without since';
  if (since < pruned) return 'since is older than the events kept: reload, then reconnect without since';
  if (missed > maxResumeEvents) return 'too many missed events: reload, then reconnect without since';
  return null;
}

/** Replays what happened after `since`, then the live events that waited meanwhile, at the client's pace. */
async function replaySince(gateway: Gateway, connection: Connection, since: number): Promise<void> {
  const { options, store } = gateway;
  connection.lastSentId = since;
  const [missed, newest] = await Promise.all([store.eventsFor(connection.userId, since, options.maxResumeEvents + 1), store.newestEventId()]);
  // After the events: see prunedThrough.
  const pruned = await store.prunedThrough();
  if (!gateway.connections.has(connection)) return;
  const refusal = resumeRefusal(since, missed.length, newest, pruned, options.maxResumeEvents);
  if (refusal !== null) {
    end(gateway, connection, CLOSE_RESYNC, refusal);
    return;
  }
  // The replay waits for the client to read, rather than tripping the slow-consumer limit meant
  // for live frames, which would cut a healthy client off part-way through a large backlog.
  for (const event of missed) {
    if (!(await replayOne(gateway, connection, event))) return;
  }
  // Live events that came while the replay waited for the client are paced the same way: sent in
  // one burst, they would trip the slow-consumer cut-off on a client that was reading.
  for (let waiting = connection.pending ?? []; waiting.length > 0; waiting = connection.pending ?? []) {
    connection.pending = [];
    for (const event of waiting) {
      if (!(await replayOne(gateway, connection, event))) return;
    }
  }
  connection.pending = null;
}

export function createRealtimeGateway(deps: { store: RealtimeStore; clock: Clock; options?: Partial<GatewayOptions>; onError?: (error: unknown) => void }) {
  const connections = new Connections();
  const gateway: Gateway = {
    connections,
    options: { ...DEFAULT_GATEWAY_OPTIONS, ...deps.options },
    store: deps.store,
    clock: deps.clock,
    onError: deps.onError,
    frames: new WeakMap(),
    rechecking: false,
  };
  const deliverTo = (connection: Connection, event: OutboxEvent) => send(gateway, connection, event);
  const heartbeat = setInterval(() => beat(gateway), gateway.options.heartbeatMs);
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
      socket.on('close', () => connections.drop(connection));
      socket.on('error', () => connections.drop(connection));
      // Registered before reading, so nothing committed from here on can fall between the two.
      connections.add(connection);
      if (await joinChannelsOf(gateway, connection)) await replaySince(gateway, connection, since);
    },

    deliver(events: OutboxEvent[]): void {
      for (const event of events) routeEvent(connections, event, deliverTo);
    },

    /** Ends the streams of a user just banned (told through the notices, from any instance). */
    disconnectBanned(userId: string): void {
      for (const connection of [...connections.ofUser(userId)]) end(gateway, connection, CLOSE_BANNED, 'banned');
    },

    /** Ends the user's streams whose token was just revoked (told through the notices, from any instance). */
    endRevoked(userId: string): Promise<void> {
      return endRevoked(gateway, userId);
    },

    /** Ends every stream whose token has ended (an OAuth client deleted with its tokens, told through the notices). */
    endAllRevoked(): Promise<void> {
      return recheck(gateway);
    },

    get connectionCount(): number {
      return connections.size;
    },

    close(): void {
      clearInterval(heartbeat);
      for (const connection of connections.all) connection.socket.close(1001, 'server shutting down');
      connections.clear();
    },
  };
}

export type RealtimeGateway = ReturnType<typeof createRealtimeGateway>;
