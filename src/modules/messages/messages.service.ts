import type SQLite from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import { appendEvents, type DomainEvent } from '../../events/outbox.js';
import { notFound } from '../../shared/errors.js';
import type { PageTokens } from '../../shared/paging.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import type { ChannelRow } from '../channels/channels.types.js';
import type { UserRow } from '../users/users.types.js';
import { createMessageLookups } from './lookups.store.js';
import { type CreatedMessage, createMessageCreates, LazyCreatedMessage, type MessageActor, type TextGuard } from './create-messages.js';
import { createMediaSweep } from './media-sweep.js';
import { type MessageRow, presentMessage } from './messages.present.js';
import { createPostgresMessageWriter } from './messages.postgres.js';
import { createMessageQuery } from './messages.query.js';
import { createSqliteMessageWriter } from './messages.sqlite.js';
import { createMessagesStore } from './messages.store.js';

export {
  type CreatedMessage,
  type CreateMessageInput,
  type GuardedText,
  MAX_TEXT_LENGTH,
  type MessageActor,
  type PreparedMessage,
  type TextGuard,
} from './create-messages.js';

export function createMessagesService(deps: {
  db: Executor;
  dialect: Dialect;
  /** The raw SQLite connection (storage.sqlite): enables the prepared-statement fast path. */
  sqlite: SQLite.Database | null;
  clock: Clock;
  pageTokens: PageTokens;
  blobs: BlobStore;
  textGuards: readonly TextGuard[];
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

    async get(messageId: string): Promise<{ row: MessageRow; channel: ChannelRow; author: UserRow | undefined }> {
      const row = await store.findById(messageId);
      if (!row) throw notFound('Message');
      const [channel, author] = await Promise.all([lookups.channel(row.channel_id), lookups.user(row.user_id)]);
      if (!channel) throw notFound('Channel');
      return { row, channel, author };
    },

    query: createMessageQuery({ db, dialect, pageTokens }),

    /** Soft delete: the record stays (isDeleted, data emptied), counters drop, blobs go after commit. */
    async deleteMessage(actor: MessageActor, messageId: string): Promise<CreatedMessage> {
      const now = clock.now();
      const row = await runTransaction(db, async (trx) => {
        const inTrx = createMessagesStore(trx, dialect);
        const found = await inTrx.findById(messageId);
        if (!found) throw notFound('Message');
        if (found.is_deleted === 1) return found;
        await inTrx.lockChannel(found.channel_id);
        const deleted = await inTrx.markDeleted(messageId, now);
        // Deleted meanwhile by someone else: deleting is idempotent.
        if (!deleted) return (await inTrx.findById(messageId)) as MessageRow;
        await inTrx.addToMessageCount(deleted.channel_id, -1);
        if (deleted.parent_id !== null) await inTrx.addToChildren(deleted.parent_id, -1, now);
        const event: DomainEvent = { type: 'message.deleted', channelId: deleted.channel_id, userId: actor.userId, data: presentMessage(deleted) };
        await appendEvents(trx, [event], now);
        return deleted;
      });
      if (row.media !== null) await sweepDeletedMedia();
      return new LazyCreatedMessage(row, await lookups.user(row.user_id));
    },

    /** A ChannelCloseHook: closing a channel soft-deletes all its messages inside the close transaction. */
    async deleteAllOnClose(trx: Executor, channelId: string, now: number): Promise<void> {
      await createMessagesStore(trx, dialect).deleteAllInChannel(channelId, now);
      // The sweep reads committed state only, so it never removes blobs of a close that rolled back.
      sweepSoon();
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
