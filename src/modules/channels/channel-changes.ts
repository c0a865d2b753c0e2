import { appendEvents } from '../../events/outbox.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { presentChannel } from './channels.present.js';
import type { ChannelsStore } from './channels.store.js';
import type { ChannelRow } from './channels.types.js';

/** Loads and locks an open channel, or explains why the change cannot happen. */
export async function lockOpenChannel(store: ChannelsStore, channelId: string): Promise<ChannelRow> {
  const channel = await store.lockById(channelId);
  if (!channel) throw notFound('Channel');
  if (channel.is_closed === 1) throw new AppError('conflict', 'Channel is closed.');
  return channel;
}

export async function currentChannel(store: ChannelsStore, channelId: string): Promise<ChannelRow> {
  const channel = await store.findById(channelId);
  if (!channel) throw notFound('Channel');
  return channel;
}

/** Every user named exists (404 naming the missing ones otherwise). */
export async function requireUsers(store: ChannelsStore, userIds: readonly string[]): Promise<void> {
  const unique = [...new Set(userIds)];
  const found = await store.existingUserIds(unique);
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new AppError('notFound', `User not found: ${missing.join(', ')}.`, {
      detail: missing.map((id) => ({ field: 'userIds', message: `user ${id} does not exist` })),
    });
  }
}

export function memberEvent(type: 'member.added' | 'member.removed', channel: ChannelRow, userIds: string[], actorId: string | null, now: number) {
  return { type, channelId: channel.id, userId: actorId, data: { channelId: channel.id, userIds, channel: presentChannel(channel, now) } };
}

/** The channel as it is now, told to its members as channel.updated. */
export async function emitChannelUpdated(store: ChannelsStore, trx: Executor, channelId: string, now: number): Promise<ChannelRow> {
  const channel = await currentChannel(store, channelId);
  await appendEvents(trx, [{ type: 'channel.updated', channelId, data: { channel: presentChannel(channel, now) } }], now);
  return channel;
}
