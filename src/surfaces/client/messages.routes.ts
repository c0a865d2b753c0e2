import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import type { Paging } from '../../http/paging.js';
import { ChannelIdParams, Id, Metadata, Segment, StringEnum, Tags } from '../../http/schemas.js';
import { HANDS_EVENTS_ITSELF, type TypedApp } from '../../http/typed-app.js';
import { contentDispositionOf } from '../../modules/messages/files.js';
import { sendBlob } from '../admin/media.routes.js';
import type { MediaService } from '../../modules/messages/media.service.js';
import { IMAGE_SIZES } from '../../modules/messages/messages.present.js';
import { type MessageRecord, presentMessage } from '../../modules/messages/messages.present.js';
import { cachedJson, createdAnswer, MessageIdParams } from '../admin/messages.routes.js';
import { MAX_TEXT_LENGTH, type MessagesService } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../modules/messages/multipart.js';
import type { SendRules } from '../../modules/messages/send-rules.js';
import type { PermissionsService } from '../../modules/roles/permissions.service.js';
import type { UserRow } from '../../modules/users/users.store.js';

const tag = { tags: ['client messages'] };
const consumes = ['multipart/form-data'];
const readUpload = readMultipartBody({ fileField: 'file', arrayFields: ['tags'] });
const PageSize = Type.Integer({ minimum: 1, maximum: 100 });

/** A topic id: like any id, but empty is allowed and means the channel's main topic. */
export const TopicId = (description: string) => Type.String({ maxLength: 50, pattern: '^[^\\s/?#%\\\\]*$', description });

/** '' is the main topic (null); absent is "not said". */
export const topicOf = (value: string | undefined): string | null | undefined => (value === undefined ? undefined : value === '' ? null : value);

/**
 * The authors of an answer as other members may see them. The admin API's user record carries email,
 * roles, flags and ban state, which are the operator's business, not every channel member's.
 */
export function presentPublicUser(row: UserRow) {
  return { userId: row.id, displayName: row.display_name ?? '', avatar: row.avatar ?? '', isBot: row.kind === 'bot' };
}

const publicUserJson = cachedJson(presentPublicUser);

function answer(messages: MessageRecord[], authors: Array<UserRow | undefined>, paging: Paging = { next: null, prev: null }) {
  const users = new Map<string, UserRow>();
  for (const author of authors) if (author) users.set(author.id, author);
  return { status: 'success' as const, data: { messages, users: [...users.values()].map(presentPublicUser) }, paging };
}

/**
 * Reading and writing messages as a member (API-CONVENTIONS.md section 6): the admin API's message
 * shapes, behind the send rules. Reactions and message flags live in their own modules.
 */
export function registerClientMessageRoutes(
  app: TypedApp,
  deps: { messages: MessagesService; media: MediaService; sendRules: SendRules; permissions: PermissionsService },
): void {
  const { messages, media, sendRules, permissions } = deps;

  /** Checked before a multipart body is read, so nobody streams a file into a channel they cannot post in. */
  const requirePoster = async (request: FastifyRequest): Promise<void> => {
    const { channelId } = request.params as { channelId: string };
    await sendRules.requirePoster(principalOf(request).userId, channelId);
  };

  app.get(
    '/channels/:channelId/messages',
    {
      schema: {
        ...tag,
        summary: 'Read the messages of a channel the caller is a member of',
        params: ChannelIdParams,
        querystring: Type.Object({
          after: Type.Optional(Segment),
          first: Type.Optional(PageSize),
          before: Type.Optional(Segment),
          last: Type.Optional(PageSize),
          token: Type.Optional(Type.String({ maxLength: 2048 })),
          parentId: Type.Optional(Id('Only the comments of this message')),
          filterByParentId: Type.Optional(Type.Boolean({ description: 'true: only messages without a parent' })),
          tags: Type.Optional(Tags('Messages with any of these tags')),
          excludeTags: Type.Optional(Tags('Messages with none of these tags')),
          topicId: Type.Optional(TopicId("Only this topic's messages; empty: the main topic only")),
          tid: Type.Optional(TopicId('Same as topicId (the bot API name)')),
        }),
      },
    },
    async (request) => {
      const { channelId } = request.params;
      await sendRules.requireReader(principalOf(request).userId, channelId);
      const { after, first, before, last, token, parentId, filterByParentId, tags, excludeTags } = request.query;
      if (request.query.topicId !== undefined && request.query.tid !== undefined && request.query.topicId !== request.query.tid) {
        throw new AppError('parameters', 'topicId and tid name different topics.', { detail: [{ field: 'query.tid', message: 'must equal topicId when both are given' }] });
      }
      const options = { after, first, before, last, token };
      const { rows, authors, paging } = await messages.query({
        channelId,
        ...(parentId !== undefined ? { parentId } : {}),
        ...(filterByParentId !== undefined ? { filterByParentId } : {}),
        ...(tags !== undefined ? { tags } : {}),
        ...(excludeTags !== undefined ? { excludeTags } : {}),
        topicId: topicOf(request.query.topicId ?? request.query.tid),
        options: Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
      });
      return answer(rows.map(presentMessage), authors, paging);
    },
  );

  app.post(
    '/channels/:channelId/messages',
    {
      config: HANDS_EVENTS_ITSELF,
      schema: {
        ...tag,
        summary: 'Send a text or custom message',
        params: ChannelIdParams,
        body: Type.Object({
          type: StringEnum(['text', 'custom']),
          data: Metadata('text: {"text": "..."} (at most 20,000 characters); custom: any JSON object up to 100 KB'),
          tags: Type.Optional(Tags()),
          parentId: Type.Optional(Id('Makes the message a comment of this message of the same channel')),
          topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
        }),
      },
    },
    async (request, reply) => {
      const actor = principalOf(request);
      const { channelId } = request.params;
      await sendRules.requirePoster(actor.userId, channelId);
      const { type, data, tags, parentId, topicId } = request.body;
      return createdAnswer(reply, await messages.createMessage(actor, { channelId, type, data, tags, parentId, topicId: topicOf(topicId) ?? null }), publicUserJson);
    },
  );

  app.post(
    '/channels/:channelId/images',
    {
      preValidation: [requirePoster, readUpload],
      schema: {
        ...tag,
        summary: 'Send an image message (multipart: file, caption, tags, parentId, fullImage, topicId)',
        consumes,
        params: ChannelIdParams,
        body: Type.Object({
          caption: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH })),
          tags: Type.Optional(Tags()),
          parentId: Type.Optional(Id()),
          fullImage: Type.Optional(Type.Boolean({ description: 'Also keep the original size (metadata stripped)' })),
          topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
        }),
      },
    },
    async (request) => {
      const upload = uploadOf(request);
      const { topicId, ...rest } = request.body;
      const { record, author } = await media.createImageMessage(principalOf(request), {
        ...rest,
        channelId: request.params.channelId,
        topicId: topicOf(topicId) ?? null,
        file: upload.data,
      });
      return answer([record], [author]);
    },
  );

  app.post(
    '/channels/:channelId/files',
    {
      preValidation: [requirePoster, readUpload],
      schema: {
        ...tag,
        summary: 'Send a file message (multipart: file, tags, parentId, topicId)',
        consumes,
        params: ChannelIdParams,
        body: Type.Object({
          tags: Type.Optional(Tags()),
          parentId: Type.Optional(Id()),
          topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
        }),
      },
    },
    async (request) => {
      const upload = uploadOf(request);
      const { record, author } = await media.createFileMessage(principalOf(request), {
        channelId: request.params.channelId,
        tags: request.body.tags,
        parentId: request.body.parentId,
        topicId: topicOf(request.body.topicId) ?? null,
        file: upload.data,
        fileName: upload.fileName,
        contentType: upload.mimeType,
      });
      return answer([record], [author]);
    },
  );

  // Downloads: members of the message's channel only, with the admin API's headers (validators, nosniff,
  // files as attachments in a sandbox). Not in the contract's table, but an app cannot show a picture
  // message without them.
  app.get(
    '/messages/:messageId/images',
    {
      schema: {
        ...tag,
        summary: 'Download an image message in one size (default medium); members only',
        params: MessageIdParams,
        querystring: Type.Object({ size: Type.Optional(StringEnum(IMAGE_SIZES)) }),
      },
    },
    async (request, reply) => {
      const row = await messages.findLive(request.params.messageId);
      await sendRules.requireReader(principalOf(request).userId, row.channel_id);
      const blob = await media.openImage(row.id, request.query.size ?? 'medium');
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );

  app.get(
    '/messages/:messageId/files',
    { schema: { ...tag, summary: 'Download the file of a file message; members only', params: MessageIdParams } },
    async (request, reply) => {
      const row = await messages.findLive(request.params.messageId);
      await sendRules.requireReader(principalOf(request).userId, row.channel_id);
      const blob = await media.openFile(row.id);
      reply.header('content-disposition', contentDispositionOf(blob.fileName ?? 'file'));
      reply.header('content-security-policy', "default-src 'none'; sandbox");
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );

  app.delete(
    '/messages/:messageId',
    { schema: { ...tag, summary: "Delete one's own message, or any with permission DELETE_MESSAGE", params: MessageIdParams } },
    async (request) => {
      const actor = principalOf(request);
      const { row } = await messages.get(request.params.messageId);
      if (row.user_id !== actor.userId && !(await permissions.has(actor.userId, 'DELETE_MESSAGE', row.channel_id))) {
        throw new AppError('permissionDenied', 'Permission DELETE_MESSAGE is required.');
      }
      const { record, author } = await messages.deleteMessage(actor, row.id);
      return answer([record], [author]);
    },
  );
}
