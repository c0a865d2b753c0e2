import { type Static, Type } from '@sinclair/typebox';
import type { MessagesTable } from '../../storage/schema.js';
import { iso, parseJson } from '../../shared/values.js';
import { IsoTime, Nullable, OpenObject, ReactionCounts } from '../../shared/schemas.js';

export type MessageRow = MessagesTable;

/** Sizes an image message may be served in; `full` exists only when uploaded with fullImage. */
export const IMAGE_SIZES = ['small', 'medium', 'large', 'full'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

/** What the `media` column holds: enough to find, serve and finally remove the message's blobs. */
export type MessageMedia =
  | { kind: 'image'; fileId: string; format: 'jpeg' | 'png'; sizes: ImageSize[]; width: number; height: number }
  | { kind: 'file'; fileId: string; name: string; contentType: string; size: number };

/** The blob keys of a message's media. Keys end with the file id so the disk store's fan-out stays even. */
export function blobKeyOf(fileId: string, variant: ImageSize | 'file'): string {
  return `${variant}-${fileId}`;
}

export function blobKeysOf(media: MessageMedia): string[] {
  return media.kind === 'image' ? media.sizes.map((size) => blobKeyOf(media.fileId, size)) : [blobKeyOf(media.fileId, 'file')];
}

export function parseMedia(media: string | null): MessageMedia | null {
  return media === null ? null : parseJson<MessageMedia | null>(media, null);
}

export const MessageRecord = Type.Object(
  {
    messageId: Type.String(),
    channelId: Type.String(),
    userId: Type.String({ description: 'The author' }),
    type: Type.String({ description: "'text', 'custom', 'image' or 'file'" }),
    data: OpenObject(
      "By type: text {text}; image {caption, fileId}; file {fileId, fileName, contentType, size}; custom: the sender's own object. {} once deleted",
    ),
    tags: Type.Array(Type.String()),
    parentId: Nullable(Type.String(), 'The message this one comments on; null for a top-level message'),
    childrenNumber: Type.Integer({ description: 'Comments on this message that are not deleted' }),
    channelSegment: Type.Integer({ description: "The message's 1-based sequence number inside its channel" }),
    isDeleted: Type.Boolean(),
    fileId: Nullable(Type.String(), 'The uploaded image or file of an image or file message; null otherwise and once deleted'),
    flagCount: Type.Integer({ description: 'How many users flagged the message' }),
    reactions: ReactionCounts('How many reactions of each name the message has'),
    reactionsCount: Type.Integer({ description: 'All reactions on the message' }),
    editedAt: Nullable(IsoTime('When the message was edited'), 'When the message was edited; null when it never was (no surface edits messages)'),
    createdAt: IsoTime('When the message was sent'),
    updatedAt: IsoTime('When the message last changed (edit, delete, comments, reactions)'),
    topicId: Nullable(Type.String(), "Parley's addition: the message's topic inside the channel (the bot API's tid); null for the main topic"),
  },
  {
    description: 'A message (docs/contract.md, Records)',
    examples: [
      {
        messageId: '67d3f5a5e4b0a1c2d3e4f501',
        channelId: 'general',
        userId: 'alice',
        type: 'text',
        data: { text: 'Standup moved to 10:30 today.' },
        tags: ['announcement'],
        parentId: null,
        childrenNumber: 2,
        channelSegment: 1280,
        isDeleted: false,
        fileId: null,
        flagCount: 0,
        reactions: { like: 3, heart: 1 },
        reactionsCount: 4,
        editedAt: null,
        createdAt: '2025-03-14T09:26:53.589Z',
        updatedAt: '2025-03-14T09:31:12.004Z',
        topicId: null,
      },
    ],
  },
);
export type MessageRecord = Static<typeof MessageRecord>;

/** messages row -> the message record of docs/contract.md, Records. */
export function presentMessage(row: MessageRow): MessageRecord {
  // Every create presents its row (outbox event and answer): the usual empty tags and reactions, and an
  // updatedAt equal to createdAt, skip a JSON.parse or a date formatting each.
  const createdAt = iso(row.created_at);
  return {
    messageId: row.id,
    channelId: row.channel_id,
    userId: row.user_id,
    type: row.type,
    data: parseJson<Record<string, unknown>>(row.data, {}),
    tags: row.tags === '[]' ? [] : parseJson<string[]>(row.tags, []),
    parentId: row.parent_id,
    childrenNumber: row.children_number,
    channelSegment: row.segment,
    isDeleted: row.is_deleted === 1,
    fileId: row.file_id,
    flagCount: row.flag_count,
    reactions: row.reactions === '{}' ? {} : parseJson<Record<string, number>>(row.reactions, {}),
    reactionsCount: row.reactions_count,
    editedAt: iso(row.edited_at),
    createdAt,
    updatedAt: row.updated_at === row.created_at ? createdAt : iso(row.updated_at),
    /** Parley's addition (the contract names no field): the message's topic, null for the main topic. */
    topicId: row.topic_id,
  };
}

const jsonOrNull = (text: string | null): string => (text === null ? 'null' : JSON.stringify(text));

/**
 * `JSON.stringify(presentMessage(row))`, written out directly, for a row this process has just
 * created. Every create answers its record and writes it to the outbox, and building the object,
 * parsing `data` back out of its JSON and serializing it all again was a fifth of the batch writer's
 * time. The row's `data`, `tags` and `reactions` are JSON text that this process serialized itself
 * (messages.service.ts), so they go in verbatim; rows read from the database go through
 * presentMessage, which survives a malformed column. A test holds the two texts equal.
 */
export function presentCreatedMessageJson(row: MessageRow): string {
  const createdAt = iso(row.created_at);
  const updatedAt = row.updated_at === row.created_at ? createdAt : iso(row.updated_at);
  return (
    `{"messageId":${JSON.stringify(row.id)},"channelId":${JSON.stringify(row.channel_id)},"userId":${JSON.stringify(row.user_id)}` +
    `,"type":${JSON.stringify(row.type)},"data":${row.data},"tags":${row.tags},"parentId":${jsonOrNull(row.parent_id)}` +
    `,"childrenNumber":${row.children_number},"channelSegment":${row.segment},"isDeleted":${row.is_deleted === 1}` +
    `,"fileId":${jsonOrNull(row.file_id)},"flagCount":${row.flag_count},"reactions":${row.reactions},"reactionsCount":${row.reactions_count}` +
    `,"editedAt":${jsonOrNull(iso(row.edited_at))},"createdAt":${jsonOrNull(createdAt)},"updatedAt":${jsonOrNull(updatedAt)}` +
    `,"topicId":${jsonOrNull(row.topic_id)}}`
  );
}
