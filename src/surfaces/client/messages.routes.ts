import type { FastifyRequest } from 'fastify';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { AppError } from '../../shared/errors.js';
import type { Paging } from '../../shared/paging.js';
import { ChannelIdParams } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { contentDispositionOf } from '../../modules/messages/files.js';
import { sendBlob } from '../shared/send-blob.js';
import type { MediaService } from '../../modules/messages/media.service.js';
import { type MessageRecord, presentMessage } from '../../modules/messages/messages.present.js';
import { cachedJson, createdAnswer, MessageIdParams } from '../shared/message-answers.js';
import type { MessagesService } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../http/multipart.js';
import type { SendRules } from '../../modules/messages/send-rules.js';
import type { ModeratorService } from '../../modules/moderators/moderator.service.js';
import type { UserRow } from '../../modules/users/users.types.js';
import { ClientMessagesAnswer } from './client.schemas.js';
import { FileDownloadAnswers, FileUploadBody, ImageDownloadAnswers, ImageQuery, ImageUploadBody, MessagesQuery, NewMessageBody } from './messages.schemas.js';
import { presentPublicUser } from './public-user.present.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['client messages'] };
const MULTIPART = ['multipart/form-data'];
const readUpload = readMultipartBody({ fileField: 'file', arrayFields: ['tags'] });

/** '' is the main topic (null); absent is "not said". */
export const topicOf = (value: string | undefined): string | null | undefined => (value === undefined ? undefined : value === '' ? null : value);

const publicUserJson = cachedJson(presentPublicUser);

function answer(messages: MessageRecord[], authors: Array<UserRow | undefined>, paging: Paging = { next: null, prev: null }) {
  const users = new Map<string, UserRow>();
  for (const author of authors) if (author) users.set(author.id, author);
  return { status: 'success' as const, data: { messages, users: [...users.values()].map(presentPublicUser) }, paging };
}

/** What a member may not do in a channel, besides the usual 400, 401, 404 and 422. */
const SEND_REFUSALS =
  '403 when the caller is not a member (400301), banned (400304), muted (400302), the channel is muted (400303) or the text breaks a rule (400307-400309); 409 (400900) when the channel is closed.';

interface ClientMessageDeps {
  messages: MessagesService;
  media: MediaService;
  sendRules: SendRules;
  moderator: ModeratorService;
}

/**
 * Reading and writing messages as a member (docs/contract.md, Surfaces beyond the original): the admin API's message
 * shapes, behind the send rules. Reactions and message flags live in their own modules.
 */
export function registerClientMessageRoutes(app: TypedApp, deps: ClientMessageDeps): void {
  registerMessageReadAndSendRoutes(app, deps);
  registerMessageUploadRoutes(app, deps);
  registerMessageDownloadRoutes(app, deps);
  registerMessageDeleteRoute(app, deps);
}

function registerMessageReadAndSendRoutes(app: TypedApp, deps: ClientMessageDeps): void {
  const { messages, sendRules } = deps;

  app.get(
    '/channels/:channelId/messages',
    {
      schema: {
        ...tag,
        summary: 'Read the messages of a channel the caller is a member of',
        description:
          'A page of messages in channelSegment order, with their authors as other members see them. Paging as in the admin query: `after` + `first`, `before` + `last`, or the newest `last`; `token` continues. 403 for a caller who is not a member or is banned.',
        params: ChannelIdParams,
        querystring: MessagesQuery,
        response: answers(ClientMessagesAnswer),
      },
    },
    async (request) => {
      const { channelId } = request.params;
      await sendRules.requireReader(principalOf(request).userId, channelId);
      const { after, first, before, last, token, parentId, filterByParentId, tags, excludeTags } = request.query;
      if (request.query.topicId !== undefined && request.query.tid !== undefined && request.query.topicId !== request.query.tid) {
        throw new AppError('parameters', 'topicId and tid name different topics.', {
          detail: [{ field: 'query.tid', message: 'must equal topicId when both are given' }],
        });
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
      schema: {
        ...tag,
        summary: 'Send a text or custom message',
        description: `Sends a message as the caller and answers it with its author. ${SEND_REFUSALS} 413 for a body over the limit.`,
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: NewMessageBody,
        response: answers(ClientMessagesAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request, reply) => {
      const actor = principalOf(request);
      const { channelId } = request.params;
      await sendRules.requirePoster(actor.userId, channelId);
      const { type, data, tags, parentId, topicId } = request.body;
      return createdAnswer(
        reply,
        await messages.createMessage(actor, { channelId, type, data, tags, parentId, topicId: topicOf(topicId) ?? null }),
        publicUserJson,
      );
    },
  );
}

function registerMessageUploadRoutes(app: TypedApp, deps: ClientMessageDeps): void {
  const { media, sendRules } = deps;

  /** Checked before a multipart body is read, so nobody streams a file into a channel they cannot post in. */
  const requirePoster = async (request: FastifyRequest): Promise<void> => {
    const { channelId } = request.params as { channelId: string };
    await sendRules.requirePoster(principalOf(request).userId, channelId);
  };

  app.post(
    '/channels/:channelId/images',
    {
      preValidation: [requirePoster, readUpload],
      schema: {
        ...tag,
        summary: 'Send an image message (multipart: file, caption, tags, parentId, fullImage, topicId)',
        description: `Uploads an image and sends it as an image message, kept in small, medium and large sizes (and full with fullImage). ${SEND_REFUSALS} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        params: ChannelIdParams,
        body: ImageUploadBody,
        response: answers(ClientMessagesAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request) => {
      const upload = uploadOf(request);
      const { topicId, caption, tags, parentId, fullImage } = request.body;
      const { record, author } = await media.createImageMessage(principalOf(request), {
        caption,
        tags,
        parentId,
        fullImage,
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
        description: `Uploads a file and sends it as a file message; its name and content type are kept. ${SEND_REFUSALS} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        params: ChannelIdParams,
        body: FileUploadBody,
        response: answers(ClientMessagesAnswer, { extraErrors: [409, 413] }),
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
}

function registerMessageDownloadRoutes(app: TypedApp, deps: ClientMessageDeps): void {
  const { messages, media, sendRules } = deps;

  // Downloads: members of the message's channel only, with the admin API's headers (validators, nosniff,
  // files as attachments in a sandbox). Not in the contract's table, but an app cannot show a picture
  // message without them.
  app.get(
    '/messages/:messageId/images',
    {
      schema: {
        ...tag,
        summary: 'Download an image message in one size (default medium); members only',
        description:
          "The image's bytes with an ETag; If-None-Match with it answers 304. 404 for a message that is not a live image or a size it was not kept in; 403 for a caller who may not read the channel.",
        params: MessageIdParams,
        querystring: ImageQuery,
        response: ImageDownloadAnswers,
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
    {
      schema: {
        ...tag,
        summary: 'Download the file of a file message; members only',
        description:
          "The file's bytes as an attachment under its name, with an ETag; If-None-Match with it answers 304. 404 for a message that is not a live file message; 403 for a caller who may not read the channel.",
        params: MessageIdParams,
        response: FileDownloadAnswers,
      },
    },
    async (request, reply) => {
      const row = await messages.findLive(request.params.messageId);
      await sendRules.requireReader(principalOf(request).userId, row.channel_id);
      const blob = await media.openFile(row.id);
      reply.header('content-disposition', contentDispositionOf(blob.fileName ?? 'file'));
      reply.header('content-security-policy', "default-src 'none'; sandbox");
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );
}

function registerMessageDeleteRoute(app: TypedApp, deps: ClientMessageDeps): void {
  const { moderator } = deps;

  app.delete(
    '/messages/:messageId',
    {
      schema: {
        ...tag,
        summary: "Delete one's own message, or any with permission DELETE_MESSAGE",
        description:
          'Soft-deletes the message (its data emptied, isDeleted true) and answers it. 403 (400301) for a message of someone else without DELETE_MESSAGE in its channel; 404 for a missing message.',
        params: MessageIdParams,
        response: answers(ClientMessagesAnswer),
      },
    },
    async (request) => {
      const { record, author } = await moderator.deleteMessage(principalOf(request), request.params.messageId, auditNoteOf(request));
      return answer([record], [author]);
    },
  );
}
