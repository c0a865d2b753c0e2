import type SQLite from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import { appendEvents } from '../../events/outbox.js';
import type { OutboxRelay } from '../../events/relay.js';
import { AppError, notFound } from '../../http/errors.js';
import type { PageTokens } from '../../http/paging.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Dialect, Executor } from '../../storage/database.js';
import { newObjectId } from '../../storage/ids.js';
import { runTransaction } from '../../storage/transactions.js';
import { jsonWithinLimit } from '../channels/channels.service.js';
import { type ChannelRow, createChannelsStore } from '../channels/channels.store.js';
import type { TokenKind } from '../tokens/tokens.service.js';
import { createUsersStore, type UserRow } from '../users/users.store.js';
import { createGroupCommit } from './group-commit.js';
import { blobKeysOf, IMAGE_SIZES, type MessageMedia, type MessageRecord, type MessageRow, parseMedia, presentMessage } from './messages.present.js';
import { createMessageQuery } from './messages.query.js';
import { createSqliteMessageWriter } from './messages.sqlite.js';
import { type CreateFailure, type CreateOutcome, createMessagesStore, type MessageDraft } from './messages.store.js';
import { posterError } from './send-rules.js';

/** Who writes or deletes, as far as messages care: the principal of the request. */
export interface MessageActor {
  userId: string;
  /**
   * The token kind. End users and bots post as channel members: their creates check the send rules
   * again under the channel lock (send-rules.ts). Admin tokens (and callers without a kind: the CLI,
   * seeding) act on any channel.
   */
  kind?: TokenKind;
}

/** One piece of user text a guard may refuse: where it sits in the request, and the text itself. */
export interface GuardedText {
  field: string;
  text: string;
}

/**
 * The moderation seam: every guard sees the text of a message (text, every string of custom data,
 * an image caption) before anything is stored, and refuses by throwing an AppError.
 */
export type TextGuard = (actor: MessageActor, input: { channelId: string; texts: GuardedText[] }) => void | Promise<void>;

export const MAX_TEXT_LENGTH = 20_000;

export interface CreateMessageInput {
  channelId: string;
  type: 'text' | 'custom';
  data: Record<string, unknown>;
  tags?: string[] | undefined;
  parentId?: string | null | undefined;
  /** The topic inside the channel (bot API `tid`); absent or null: the main topic. */
  topicId?: string | null | undefined;
}

/** A message whose blobs are already written (images, files); see media.service.ts. */
export interface PreparedMessage {
  channelId: string;
  type: 'image' | 'file';
  data: Record<string, unknown>;
  tags?: string[] | undefined;
  parentId?: string | null | undefined;
  topicId?: string | null | undefined;
  media: MessageMedia;
}

export interface CreatedMessage {
  row: MessageRow;
  /** The presented record. */
  readonly record: MessageRecord;
  /** The same record as JSON text; for a create, exactly what was written to the outbox (creates answer with it). */
  readonly recordJson: string;
  author: UserRow | undefined;
}

/**
 * A created or deleted message; whichever form of the record is not at hand is built on first use.
 * A class, not an object literal with getters: V8 gives each such literal a hidden class of its own
 * (its getters are fresh closures), a cost paid on every create.
 */
class LazyCreatedMessage implements CreatedMessage {
  #record: MessageRecord | null = null;
  #recordJson: string | null;

  constructor(
    readonly row: MessageRow,
    readonly author: UserRow | undefined,
    json: string | null = null,
  ) {
    this.#recordJson = json;
  }

  get record(): MessageRecord {
    this.#record ??= presentMessage(this.row);
    return this.#record;
  }

  get recordJson(): string {
    this.#recordJson ??= JSON.stringify(this.record);
    return this.#recordJson;
  }
}

function failureError(failure: CreateFailure): AppError {
  if (failure === 'channelNotFound') return notFound('Channel');
  if (failure === 'channelClosed') return new AppError('conflict', 'Channel is closed.');
  if (failure !== 'parentNotFound') return posterError(failure);
  return new AppError('notFound', 'Parent message not found in this channel.', {
    detail: [{ field: 'body.parentId', message: 'must be a live message of the same channel' }],
  });
}

/** Every string value of custom data, with its path, for the text guards. */
function stringsOf(value: unknown, path: string, into: GuardedText[]): GuardedText[] {
  if (typeof value === 'string') into.push({ field: path, text: value });
  else if (Array.isArray(value)) value.forEach((item, index) => stringsOf(item, `${path}[${index}]`, into));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) stringsOf(item, `${path}.${key}`, into);
  }
  return into;
}

function textOf(data: Record<string, unknown>): string {
  const text = data.text;
  if (typeof text !== 'string' || text.length === 0) {
    throw new AppError('parameters', 'body.data.text must be a non-empty string.', {
      detail: [{ field: 'body.data.text', message: 'must be a non-empty string' }],
    });
  }
  if (text.length > MAX_TEXT_LENGTH && [...text].length > MAX_TEXT_LENGTH) {
    throw new AppError('parameters', `body.data.text must be at most ${MAX_TEXT_LENGTH} characters.`, {
      detail: [{ field: 'body.data.text', message: `must be at most ${MAX_TEXT_LENGTH} characters` }],
    });
  }
  return text;
}

export function createMessagesService(deps: {
  db: Executor;
  dialect: Dialect;
  /** The raw SQLite connection (storage.sqlite): enables the prepared-statement fast path. */
  sqlite: SQLite.Database | null;
  /** Told about every committed batch of creates (app.ts gives the outbox relay). */
  relay?: Pick<OutboxRelay, 'handOver' | 'poke'>;
  clock: Clock;
  pageTokens: PageTokens;
  blobs: BlobStore;
  textGuards: readonly TextGuard[];
  onBackgroundError?: (error: unknown) => void;
}) {
  const { db, dialect, clock, pageTokens, blobs, textGuards } = deps;
  const store = createMessagesStore(db, dialect);
  const channels = createChannelsStore(db, dialect);
  const users = createUsersStore(db);
  const sqliteWriter = deps.sqlite ? createSqliteMessageWriter(db, deps.sqlite) : null;
  // The create routes do not wake the relay after answering (HANDS_EVENTS_ITSELF): each batch does,
  // once, handing its events over as they are, with no read back (relay.ts handOver).
  const writes = createGroupCommit<MessageDraft, CreateOutcome>(
    async (drafts) => {
      const { outcomes, events } = await (sqliteWriter ?? store).insertBatch(drafts);
      // Handed over once the batch's answers are written (a tick runs after the promise jobs that
      // write them): delivering to a channel with 1,000 sockets open takes ~10 ms, which the poster
      // need not wait for. Ticks keep the batches' order.
      const relay = deps.relay;
      if (relay && events.length > 0) process.nextTick(() => relay.handOver(events));
      return outcomes;
    },
    // One batch at a time: batches for a hot channel would only queue on its row lock, so while one
    // commits the next grows instead (SQLite has a single writer anyway).
    { maxBatch: 256, maxInFlight: 1 },
  );

  /** Runs the guards in order; a promise only when one of them answers with one (see TextGuard). */
  function checkTexts(actor: MessageActor, channelId: string, texts: GuardedText[], from = 0): void | Promise<void> {
    for (let index = from; index < textGuards.length; index += 1) {
      const pending = textGuards[index]?.(actor, { channelId, texts });
      if (pending) return pending.then(() => checkTexts(actor, channelId, texts, index + 1));
    }
  }

  async function insert(actor: MessageActor, input: Omit<MessageDraft, 'id' | 'userId' | 'createdAt' | 'asMember'>): Promise<CreatedMessage> {
    const now = clock.now();
    // Spelled out rather than `{ ...input, id, userId, createdAt }`: Node 20's V8 builds a fresh hidden
    // class for every object that adds properties after a spread (about 0.8 µs per added property).
    const outcome = await writes.submit({
      id: newObjectId(now),
      channelId: input.channelId,
      userId: actor.userId,
      type: input.type,
      data: input.data,
      tags: input.tags,
      parentId: input.parentId,
      fileId: input.fileId,
      media: input.media,
      topicId: input.topicId,
      createdAt: now,
      asMember: actor.kind === 'user' || actor.kind === 'bot',
    });
    if ('failure' in outcome) throw failureError(outcome.failure);
    return new LazyCreatedMessage(outcome.row, outcome.author, outcome.event.json);
  }

  /** Removes the blobs of deleted messages, then forgets them; safe to run at any time, any number of times. */
  async function sweepDeletedMedia(): Promise<number> {
    let removed = 0;
    for (;;) {
      const pending = await store.findPendingMedia(200);
      if (pending.length === 0) return removed;
      for (const row of pending) {
        const media = parseMedia(row.media);
        if (media) for (const key of blobKeysOf(media)) await blobs.delete(key);
      }
      await store.clearMedia(pending.map((row) => row.id));
      removed += pending.length;
    }
  }

  /** After a close commits; a second pass catches a commit slower than the first. */
  const sweepSoon = (): void => {
    for (const delay of [50, 5000]) {
      setTimeout(() => void sweepDeletedMedia().catch((error: unknown) => deps.onBackgroundError?.(error)), delay).unref();
    }
  };

  /** The blob keys (`<variant>-<fileId>`) a live message still points at; for the orphan-blob sweep. */
  async function referencedBlobKeys(keys: readonly string[]): Promise<Set<string>> {
    const fileIdOf = (key: string): string | null => {
      const dash = key.indexOf('-');
      const variant = key.slice(0, dash);
      return dash > 0 && (variant === 'file' || (IMAGE_SIZES as readonly string[]).includes(variant)) ? key.slice(dash + 1) : null;
    };
    const held = new Set(await store.heldFileIds([...new Set(keys.map(fileIdOf).filter((id): id is string => id !== null))]));
    return new Set(keys.filter((key) => held.has(fileIdOf(key) ?? '')));
  }

  return {
    checkTexts,
    sweepDeletedMedia,
    referencedBlobKeys,

    /** Creates a text or custom message: the one entry point every surface (admin, bot, client) calls. */
    async createMessage(actor: MessageActor, input: CreateMessageInput): Promise<CreatedMessage> {
      let data: string;
      let texts: GuardedText[];
      if (input.type === 'text') {
        const text = textOf(input.data);
        data = JSON.stringify({ text });
        texts = [{ field: 'data.text', text }];
      } else {
        data = jsonWithinLimit(input.data, 'data');
        texts = textGuards.length > 0 ? stringsOf(input.data, 'data', []) : [];
      }
      const checking = textGuards.length > 0 ? checkTexts(actor, input.channelId, texts) : undefined;
      if (checking) await checking;
      return insert(actor, {
        channelId: input.channelId,
        type: input.type,
        data,
        tags: [...new Set(input.tags ?? [])],
        parentId: input.parentId ?? null,
        topicId: input.topicId ?? null,
        fileId: null,
        media: null,
      });
    },

    /** Creates an image or file message whose blobs are written; the caller removes them if this throws. */
    async createPrepared(actor: MessageActor, input: PreparedMessage): Promise<CreatedMessage> {
      return insert(actor, {
        channelId: input.channelId,
        type: input.type,
        data: JSON.stringify(input.data),
        tags: [...new Set(input.tags ?? [])],
        parentId: input.parentId ?? null,
        topicId: input.topicId ?? null,
        fileId: input.media.fileId,
        media: JSON.stringify(input.media),
      });
    },

    /** A message that exists and is not deleted, or 404. */
    async findLive(messageId: string): Promise<MessageRow> {
      const row = await store.findById(messageId);
      if (!row || row.is_deleted === 1) throw notFound('Message');
      return row;
    },

    async get(messageId: string): Promise<{ row: MessageRow; channel: ChannelRow; author: UserRow | undefined }> {
      const row = await store.findById(messageId);
      if (!row) throw notFound('Message');
      const [channel, author] = await Promise.all([channels.findById(row.channel_id), users.findById(row.user_id)]);
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
        const event = { type: 'message.deleted', channelId: deleted.channel_id, userId: actor.userId, data: presentMessage(deleted) };
        await appendEvents(trx, [event], now);
        return deleted;
      });
      if (row.media !== null) await sweepDeletedMedia();
      return new LazyCreatedMessage(row, await users.findById(row.user_id));
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
