import type { WebSocket } from 'ws';
import type { OutboxEvent } from '../../events/outbox.js';

export interface Connection {
  userId: string;
  /** The token the stream was opened with (its row id), checked again at every heartbeat and when the user's tokens are revoked. */
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

const NONE: ReadonlySet<Connection> = new Set();

/** The sockets of this instance, by channel and by user. */
export class Connections {
  readonly all = new Set<Connection>();
  private readonly byChannel = new Map<string, Set<Connection>>();
  private readonly byUser = new Map<string, Set<Connection>>();

  add(connection: Connection): void {
    this.all.add(connection);
    const mine = this.byUser.get(connection.userId) ?? new Set();
    mine.add(connection);
    this.byUser.set(connection.userId, mine);
  }

  has(connection: Connection): boolean {
    return this.all.has(connection);
  }

  get size(): number {
    return this.all.size;
  }

  /** The user's sockets (the live set: a socket dropped while it is walked leaves it). */
  ofUser(userId: string): ReadonlySet<Connection> {
    return this.byUser.get(userId) ?? NONE;
  }

  /** The channel's sockets, as a copy: delivering may drop some. */
  ofChannel(channelId: string): Connection[] {
    return [...(this.byChannel.get(channelId) ?? NONE)];
  }

  join(connection: Connection, channelId: string): void {
    connection.changes?.push({ channelId, member: true });
    connection.channels.add(channelId);
    const set = this.byChannel.get(channelId) ?? new Set();
    set.add(connection);
    this.byChannel.set(channelId, set);
  }

  leave(connection: Connection, channelId: string): void {
    connection.changes?.push({ channelId, member: false });
    connection.channels.delete(channelId);
    const set = this.byChannel.get(channelId);
    set?.delete(connection);
    if (set?.size === 0) this.byChannel.delete(channelId);
  }

  drop(connection: Connection): void {
    if (!this.all.delete(connection)) return;
    for (const channelId of connection.channels) this.leave(connection, channelId);
    const mine = this.byUser.get(connection.userId);
    mine?.delete(connection);
    if (mine?.size === 0) this.byUser.delete(connection.userId);
  }

  clear(): void {
    this.all.clear();
    this.byChannel.clear();
    this.byUser.clear();
  }
}

interface MemberChange {
  userIds?: unknown;
  channel?: { isClosed?: unknown };
}

function usersOf(event: OutboxEvent): string[] {
  const ids = (event.data as MemberChange | null)?.userIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/** Routes one event to the sockets that may see it. Membership changes move sockets between channels: joiners before delivery, leavers after. */
export function routeEvent(connections: Connections, event: OutboxEvent, send: (connection: Connection, event: OutboxEvent) => void): void {
  if (event.recipientId) {
    for (const connection of connections.ofUser(event.recipientId)) send(connection, event);
    if (!event.channelId) return;
  }
  if (!event.channelId) return;
  const channelId = event.channelId;
  if (event.type === 'member.added') {
    for (const userId of usersOf(event)) for (const connection of connections.ofUser(userId)) connections.join(connection, channelId);
  }
  // Only member and channel events are read: parsing every message's payload costs the create path.
  const closed = (event.type === 'member.removed' || event.type === 'channel.updated') && (event.data as MemberChange | null)?.channel?.isClosed === true;
  if (event.type === 'member.removed' && closed) {
    // The removals of a close: everyone leaves, so each slice goes to the users it names, not to
    // every socket of the channel (which already had the channel.updated of the close).
    for (const userId of usersOf(event)) for (const connection of connections.ofUser(userId)) send(connection, event);
    return;
  }
  for (const connection of connections.ofChannel(channelId)) send(connection, event);
  if (event.type === 'member.removed') {
    for (const userId of usersOf(event)) for (const connection of connections.ofUser(userId)) connections.leave(connection, channelId);
  }
  if (event.type === 'channel.updated' && closed) {
    for (const connection of connections.ofChannel(channelId)) connections.leave(connection, channelId);
    // Sockets still reading their channels are in no channel's set yet.
    for (const connection of connections.all) if (connection.changes) connections.leave(connection, channelId);
  }
}
