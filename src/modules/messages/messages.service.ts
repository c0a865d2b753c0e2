import type SQLite from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import {
  appendEvents,
  channelMessageCreatedEvents,
  type DomainEvent,
  type MessageCreatedRef,
  messageCreatedEvents,
  rewritePayloads,
} from '../../events/outbox.js';
import { notFound } from '../../shared/errors.js';
import type { PageTokens } from '../../shared/paging.js';
import type { BlobStore } from '../../storage/blobs.js';
import { type Dialect, dialectOf, type Executor } from '../../storage/database.js';
import { afterCommit, runTransaction } from '../../storage/transactions.js';
import type { AuditNote } from '../audit/audit.types.js';
import type { AuditService } from '../audit/audit.service.js';
import { addToChannelMessageCount, clearChannelMessageCount } from '../channels/channels.service.js';
import type { ChannelRow } from '../channels/channels.types.js';
import type { UserRow } from '../users/users.types.js';
import { createMessageLookups } from './lookups.store.js';
import { type CreatedMessage, createMessageCreates, LazyCreatedMessage, type MessageActor, type TextGuard } from './create-messages.js';
import { createMediaSweep } from './media-sweep.js';
import { type MessageRow, presentMessage } from './messages.present.js';
import { createPostgresMessageWriter } from './messages.postgres.js';
import { createAuthoredMessages } from './messages.by-author.js';
import { createMessageQuery } from './messages.query.js';
import { createSqliteMessageWriter } from './messages.sqlite.js';
import { createMessagesStore, mediaAfterDelete } from './messages.store.js';
import { type RedactedEvent, redactWebhookDeliveries } from '../webhooks/webhook-redaction.js';

export {
  type CreatedMessage,
  type CreateMessageInput,
  type GuardedText,
  MAX_TEXT_LENGTH,
  type MessageActor,
  type PreparedMessage,
  type TextGuard,
} from './create-messages.js';

/** `message.created` events a close redacts per page. */
const CLOSE_REDACTION_PAGE = 500;

/**
 * A deleted message leaves no copy of what it said: its `message.created` events in the outbox (which
 * a resuming stream replays) become a tombstone, the message's record as deleted (isDeleted true, data
 * emptied, fileId null: the shape of every deleted message, and of the `message.deleted` event that
 * follows), and the webhook deliveries made from them are rewritten alike. In the delete's transaction.
 */
async function redactCopies(trx: Executor, dialect: Dialect, rows: readonly MessageRow[], events: readonly MessageCreatedRef[], now: number): Promise<void> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const redacted: RedactedEvent[] = [];
  for (const event of events) {
    const row = byId.get(event.messageId);
    if (row?.is_deleted === 1) redacted.push({ id: event.id, type: 'message.created', createdAt: event.createdAt, data: presentMessage(row) });
  }
  if (redacted.length === 0) return;
  await rewritePayloads(
    trx,
    redacted.map((event) => ({ id: event.id, payload: JSON.stringify(event.data) })),
  );
  await redactWebhookDeliveries(trx, dialect, redacted, now);
}

/**
 * Deletes these messages as deleteMessage deletes one, in the caller's transaction: channels locked
 * first (in lockChannels' order), the live ones marked deleted and emptied, message and comment counts
 * lowered, every copy redacted (outbox tombstones, webhook deliveries), file names and types dropped
 * from the media kept for the blob sweep, and one `message.deleted` per message, with no acting user.
 * Answers the rows deleted; messages already deleted are skipped. The caller runs the blob sweep after commit.
 */
export async function deleteMessagesIn(trx: Executor, dialect: Dialect, ids: readonly string[], now: number): Promise<MessageRow[]> {
  const inTrx = createMessagesStore(trx, dialect);
  const channels = [...new Set((await inTrx.liveMessageChannels([...ids])).values())];
  if (channels.length === 0) return [];
  await inTrx.lockChannels(channels);
  const deleted = await inTrx.markManyDeleted(ids, now);
  const perChannel = new Map<string, number>();
  const perParent = new Map<string, number>();
  for (const row of deleted) {
    perChannel.set(row.channel_id, (perChannel.get(row.channel_id) ?? 0) + 1);
    if (row.parent_id !== null) perParent.set(row.parent_id, (perParent.get(row.parent_id) ?? 0) + 1);
    const media = mediaAfterDelete(row.media);
    if (media !== row.media) {
      await inTrx.setMedia(row.id, media);
      row.media = media;
    }
  }
  for (const [channelId, count] of [...perChannel].sort(([a], [b]) => (a < b ? -1 : 1))) await addToChannelMessageCount(trx, channelId, -count);
  // A parent in the same batch is deleted too; its count drops all the same, as with one delete after another.
  for (const [parentId, count] of [...perParent].sort(([a], [b]) => (a < b ? -1 : 1))) await inTrx.addToChildren(parentId, -count, now);
  await redactCopies(
    trx,
    dialect,
    deleted,
    await messageCreatedEvents(
      trx,
      deleted.map((row) => row.id),
    ),
    now,
  );
  const events: DomainEvent[] = deleted.map((row) => ({ type: 'message.deleted', channelId: row.channel_id, userId: null, data: presentMessage(row) }));
  await appendEvents(trx, events, now);
  return deleted;
}

/** The message's reaction summary, rebuilt by the reactions module in its change's transaction (the message row locked). */
export function writeReactionSummary(trx: Executor, messageId: string, reactions: string, reactionsCount: number, now: number): Promise<void> {
  return createMessagesStore(trx, dialectOf(trx)).writeReactionSummary(messageId, reactions, reactionsCount, now);
}

/** The message's flag count back to none, in the transaction of the review that cleared its flags (the message row first, for lock order). */
export function resetMessageFlagCount(trx: Executor, messageId: string): Promise<void> {
  return createMessagesStore(trx, dialectOf(trx)).resetFlagCount(messageId);
}

/** One more flag on the message, in the transaction of the reactions module that inserted it. */
export function countMessageFlag(trx: Executor, messageId: string): Promise<void> {
  return createMessagesStore(trx, dialectOf(trx)).countFlag(messageId);
}

export function createMessagesService(deps: {
  db: Executor;
  dialect: Dialect;
  /** The raw SQLite connection (storage.sqlite): enables the prepared-statement fast path. */
  sqlite: SQLite.Database | null;
  clock: Clock;
  pageTokens: PageTokens;
  blobs: BlobStore;
  textGuards: readonly TextGuard[];
  /** Where a delete writes its audit entry, in its own transaction. */
  audit: Pick<AuditService, 'writeIn'>;
  onBackgroundError?: (error: unknown) => void;
}) {
  const { db, dialect, clock, pageTokens, blobs } = deps;
  const store = createMessagesStore(db, dialect);
  const lookups = createMessageLookups(db);
  // Each database's writer applies the same create rules (create-rules.ts); the transaction layer
  // hands each committed batch's events to the relay as they are.
  const writer = deps.sqlite ? createSqliteMessageWriter(db, deps.sqlite) : createPostgresMessageWriter(db, dialect, (userIds) => lookups.users(userIds));
  const creates = createMessageCreates({ writer, clock, textGuards: deps.textGuards });

  const { sweepDeletedMedia, sweepSoon, referencedBlobKeys } = createMediaSweep({ store, blobs, onBackgroundError: deps.onBackgroundError });

  async function deleteIn(trx: Executor, actor: MessageActor, messageId: string, note: AuditNote | null): Promise<MessageRow> {
    const now = clock.now();
    const inTrx = createMessagesStore(trx, dialect);
    const found = await inTrx.findById(messageId);
    if (!found) throw notFound('Message');
    if (note !== null) await deps.audit.writeIn(trx, note, [{ field: 'messageId', id: messageId }]);
    if (found.is_deleted === 1) return found;
    await inTrx.lockChannel(found.channel_id);
    const deleted = await inTrx.markDeleted(messageId, now, mediaAfterDelete(found.media));
    // Deleted meanwhile by someone else: deleting is idempotent.
    if (!deleted) return (await inTrx.findById(messageId)) as MessageRow;
    await addToChannelMessageCount(trx, deleted.channel_id, -1);
    if (deleted.parent_id !== null) await inTrx.addToChildren(deleted.parent_id, -1, now);
    await redactCopies(trx, dialect, [deleted], await messageCreatedEvents(trx, [messageId]), now);
    const event: DomainEvent = { type: 'message.deleted', channelId: deleted.channel_id, userId: actor.userId, data: presentMessage(deleted) };
    await appendEvents(trx, [event], now);
    return deleted;
  }

  return {
    ...creates,
    sweepDeletedMedia,
    referencedBlobKeys,

    /** A message that exists and is not deleted, or 404. */
    async findLive(messageId: string): Promise<MessageRow> {
      const row = await store.findById(messageId);
      if (!row || row.is_deleted === 1) throw notFound('Message');
      return row;
    },

    /** The channel a message is in, deleted messages included; undefined for an unknown message. */
    async channelOf(messageId: string): Promise<ChannelRow | undefined> {
      const row = await store.findById(messageId);
      return row === undefined ? undefined : lookups.channel(row.channel_id);
    },

    async get(messageId: string): Promise<{ row: MessageRow; channel: ChannelRow; author: UserRow | undefined }> {
      const row = await store.findById(messageId);
      if (!row) throw notFound('Message');
      const [channel, author] = await Promise.all([lookups.channel(row.channel_id), lookups.user(row.user_id)]);
      if (!channel) throw notFound('Channel');
      return { row, channel, author };
    },

    query: createMessageQuery({ db, dialect, pageTokens }),

    byAuthor: createAuthoredMessages({ db, dialect, pageTokens }),

    /**
     * Soft delete, one command: the record stays (isDeleted, data emptied), counters drop, every copy is
     * redacted, and the event and the audit entry (for an audited request's `note`) commit with it;
     * blobs go after commit. Deleting a deleted message changes nothing and answers it.
     */
    async deleteMessage(actor: MessageActor, messageId: string, note: AuditNote | null = null): Promise<CreatedMessage> {
      const row = await runTransaction(db, (trx) => deleteIn(trx, actor, messageId, note));
      if (row.media !== null) await sweepDeletedMedia();
      return new LazyCreatedMessage(row, await lookups.user(row.user_id));
    },

    /** deleteMessage in a command's transaction `trx` (a review of the moderation queue); its blobs go once that commits. */
    async deleteMessageIn(trx: Executor, actor: MessageActor, messageId: string): Promise<void> {
      const row = await deleteIn(trx, actor, messageId, null);
      if (row.media !== null) afterCommit(trx, sweepSoon);
    },

    /** A ChannelCloseHook: closing a channel soft-deletes all its messages, and redacts their copies, inside the close transaction. */
    async deleteAllOnClose(trx: Executor, channelId: string, now: number): Promise<void> {
      const inTrx = createMessagesStore(trx, dialect);
      await inTrx.deleteAllInChannel(channelId, now);
      await clearChannelMessageCount(trx, channelId);
      for (const row of await inTrx.pendingMediaIn(channelId)) {
        const media = mediaAfterDelete(row.media);
        if (media !== row.media) await inTrx.setMedia(row.id, media);
      }
      for (let afterId = 0; ; ) {
        const events = await channelMessageCreatedEvents(trx, channelId, afterId, CLOSE_REDACTION_PAGE);
        const last = events.at(-1);
        if (last === undefined) break;
        await redactCopies(trx, dialect, await inTrx.findByIds(events.map((event) => event.messageId)), events, now);
        afterId = last.id;
      }
      // The sweep reads committed state only, so it never removes blobs of a close that rolled back.
      sweepSoon();
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;

/** One flag fewer on the message, in the transaction of the reactions module that deleted it (an erased flagger's). */
export function uncountMessageFlag(trx: Executor, messageId: string): Promise<void> {
  return createMessagesStore(trx, dialectOf(trx)).uncountFlag(messageId);
}

/**
 * An erasure gives these messages the placeholder author `userId`, in the caller's transaction `trx`,
 * before (in delete mode) deleteMessagesIn deletes them: every copy then names the placeholder.
 */
export function reassignMessagesTo(trx: Executor, ids: readonly string[], userId: string): Promise<void> {
  return createMessagesStore(trx, dialectOf(trx)).reassignAuthor(ids, userId);
}
