import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.js';
import { Id, StringEnum, Tags } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { contentDispositionOf } from '../../modules/messages/files.js';
import type { MediaService, OpenedBlob } from '../../modules/messages/media.service.js';
import { IMAGE_SIZES } from '../../modules/messages/messages.present.js';
import { MessageIdParams, messagesAnswer } from './messages.routes.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../modules/messages/multipart.js';

const tag = { tags: ['messages'] };
const consumes = ['multipart/form-data'];
const readUpload = readMultipartBody({ fileField: 'file', arrayFields: ['tags'] });

/** Sends a blob with its validators; exported for the client API's downloads. */
export function sendBlob(reply: FastifyReply, ifNoneMatch: string | undefined, blob: OpenedBlob): FastifyReply {
  reply
    .header('content-type', blob.contentType)
    .header('x-content-type-options', 'nosniff')
    .header('etag', blob.etag)
    // Admin-only and removed on delete: cacheable by the caller, never by shared caches.
    .header('cache-control', 'private, max-age=3600');
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tagValue) => tagValue.trim() === blob.etag)) {
    blob.stream.destroy();
    return reply.code(304).send();
  }
  return reply.header('content-length', blob.size).send(blob.stream);
}

export function registerMediaRoutes(app: TypedApp, deps: { media: MediaService }): void {
  const { media } = deps;

  app.post(
    '/messages/images',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Create an image message (multipart: file, channelId, caption, tags, parentId, fullImage)',
        consumes,
        body: Type.Object({
          channelId: Id(),
          caption: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH })),
          tags: Type.Optional(Tags()),
          parentId: Type.Optional(Id()),
          fullImage: Type.Optional(Type.Boolean({ description: 'Also keep the original size (metadata stripped)' })),
        }),
      },
    },
    async (request) => {
      const upload = uploadOf(request);
      // The declared fields only: the parts a form carries besides them (topicId, say) are not validated.
      const { channelId, caption, tags, parentId, fullImage } = request.body;
      const { record, author } = await media.createImageMessage(principalOf(request), { channelId, caption, tags, parentId, fullImage, file: upload.data });
      return messagesAnswer([record], [author]);
    },
  );

  app.post(
    '/messages/files',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Create a file message (multipart: file, channelId, tags, parentId)',
        consumes,
        body: Type.Object({ channelId: Id(), tags: Type.Optional(Tags()), parentId: Type.Optional(Id()) }),
      },
    },
    async (request) => {
      const upload = uploadOf(request);
      const { channelId, tags, parentId } = request.body;
      const { record, author } = await media.createFileMessage(principalOf(request), {
        channelId,
        tags,
        parentId,
        file: upload.data,
        fileName: upload.fileName,
        contentType: upload.mimeType,
      });
      return messagesAnswer([record], [author]);
    },
  );

  app.get(
    '/messages/:messageId/images',
    {
      schema: {
        ...tag,
        summary: 'Download an image message in one size (default medium)',
        params: MessageIdParams,
        querystring: Type.Object({ size: Type.Optional(StringEnum(IMAGE_SIZES)) }),
      },
    },
    async (request, reply) => {
      const blob = await media.openImage(request.params.messageId, request.query.size ?? 'medium');
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );

  app.get(
    '/messages/:messageId/files',
    { schema: { ...tag, summary: 'Download the file of a file message', params: Type.Object({ messageId: Id() }) } },
    async (request, reply) => {
      const blob = await media.openFile(request.params.messageId);
      reply.header('content-disposition', contentDispositionOf(blob.fileName ?? 'file'));
      reply.header('content-security-policy', "default-src 'none'; sandbox");
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );
}
