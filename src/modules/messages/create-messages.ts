import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newObjectId } from '../../storage/ids.js';
import { jsonWithinLimit } from '../channels/channels.service.js';
import { dataTextsOf, labelTextsOf } from '../moderation-rules/user-texts.js';
import type { TokenKind } from '../tokens/tokens.service.js';
import type { UserRow } from '../users/users.types.js';
import type { CreateFailure, CreateOutcome, MessageDraft, MessageWriter } from './create-rules.js';
import { createGroupCommit } from './group-commit.js';
import { type MessageMedia, type MessageRecord, type MessageRow, presentMessage } from './messages.present.js';
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
 * The moderation seam: every guard sees the text of a message (text, every key and string of custom
 * data, tags, topic, an image caption, a file name) before anything is stored, and refuses by
 * throwing an AppError.
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
export class LazyCreatedMessage implements CreatedMessage {
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

/**
 * Message creation: texts pass the guards, then each draft joins a group commit whose writer applies
 * the create rules (create-rules.ts) for the whole batch in one transaction.
 */
export function createMessageCreates(deps: { writer: MessageWriter; clock: Clock; textGuards: readonly TextGuard[] }) {
  const { clock, textGuards } = deps;
  const writes = createGroupCommit<MessageDraft, CreateOutcome>(
    (drafts) => deps.writer.insertBatch(drafts),
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

  return {
    checkTexts,

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
        texts = textGuards.length > 0 ? dataTextsOf(input.data, 'data') : [];
      }
      // Tags and the topic are shown beside the text: the same rules judge them.
      if (textGuards.length > 0) labelTextsOf(input.tags, input.topicId, texts);
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
  };
}
