import type { OutboxEvent } from '../../events/outbox.js';
import { newObjectId } from '../../storage/ids.js';
import type { WebhooksStore } from './webhooks.store.js';
import type { DeliveryRow } from './webhooks.types.js';

/** The promise kept under `key`, made by `make` the first time the key is asked for. */
function once<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

/**
 * One delivery per (bot member, user message) of a batch of events, written through the consumer's
 * transaction (`scoped`); answers how many were scheduled.
 */
export async function scheduleDeliveries(scoped: WebhooksStore, events: readonly OutboxEvent[], now: number): Promise<number> {
  // Looked up once per author and channel in the batch, not once per event: under a burst of
  // creates a batch holds dozens of messages of the same author in the same channel, and a query
  // per event was a visible share of the create path's CPU. One transaction, so the answers hold.
  const kinds = new Map<string, Promise<string | undefined>>();
  const botsOf = new Map<string, Promise<Map<string, number>>>();
  const firstId = events[0]?.id ?? 0;
  let scheduled = 0;
  // Each bot member of a channel, with the id of the latest event that added it after the batch's
  // first event (0: it was a member before the batch).
  const audienceOf = async (channelId: string): Promise<Map<string, number>> => {
    const bots = await scoped.botMembersOf(channelId);
    const joined = new Map(bots.map((botId) => [botId, 0]));
    if (bots.length === 0) return joined;
    for (const join of await scoped.joinsAfter(channelId, firstId - 1)) {
      for (const userId of join.userIds) if (joined.has(userId)) joined.set(userId, Math.max(joined.get(userId) ?? 0, join.id));
    }
    return joined;
  };
  const pending: Array<{ messageId: string; rows: DeliveryRow[] }> = [];
  for (const event of events) {
    if (event.type !== 'message.created' || !event.channelId || !event.userId) continue;
    // Only what people say reaches bots: a bot's own (or another bot's) messages do not echo back.
    const { userId, channelId } = event;
    if ((await once(kinds, userId, () => scoped.kindOf(userId))) !== 'user') continue;
    const bots = await once(botsOf, channelId, () => audienceOf(channelId));
    const rows: DeliveryRow[] = [];
    // The URL and secret are resolved when sending (outside this transaction), so a changed URL
    // or a deleted bot is seen by the next attempt. The consumer may run well after the commit (a
    // busy peer holds its cursor): a bot whose joining committed after the message was not there
    // to hear it. Decided by outbox ids, which follow commit order: instances' clocks may differ.
    // One removed since is not asked again: its row is gone, and not telling a leaver is the safe side.
    for (const [botUserId, joinedAtId] of bots) {
      if (joinedAtId > event.id) continue;
      rows.push({
        id: newObjectId(now),
        bot_user_id: botUserId,
        event_id: event.id,
        body: deliveryBody(event),
        attempts: 0,
        next_attempt_at: now,
        last_error: null,
        delivered_at: null,
        gave_up_at: null,
        created_at: event.createdAt,
      });
    }
    // A message deleted since its event was written (a tombstone, see messages.service.ts) goes to nobody.
    if (rows.length > 0 && event.data.isDeleted !== true) pending.push({ messageId: String(event.data.messageId ?? ''), rows });
  }
  if (pending.length === 0) return 0;
  // And one deleted since the relay handed the event over (the consumer may hold it from before the
  // delete): checked under a share lock of the message rows, so a delete committing meanwhile either
  // comes first and is seen here, or waits and then redacts what this transaction schedules.
  const deleted = await scoped.deletedMessageIds(pending.map((item) => item.messageId));
  for (const { messageId, rows } of pending) {
    if (deleted.has(messageId)) continue;
    await scoped.schedule(rows);
    scheduled += rows.length;
  }
  return scheduled;
}

/** What a delivery posts (before the attempt number and send time are added): the event, as the outbox holds it. */
export function deliveryBody(event: { id: number; type: string; createdAt: number; data: unknown }): string {
  return JSON.stringify({ id: String(event.id), type: event.type, createdAt: event.createdAt, data: event.data });
}
