import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { answers } from '../../http/responses.js';
import { Id, StringEnum, Tags } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { contentDispositionOf } from '../../modules/messages/files.js';
import type { MediaService } from '../../modules/messages/media.service.js';
import { blobAnswers, sendBlob } from '../shared/send-blob.js';
import { IMAGE_SIZES } from '../../modules/messages/messages.present.js';
import { MessageIdParams, messagesAnswer, MessagesAnswer } from '../shared/message-answers.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../http/multipart.js';
import { CHANNEL_READ, moderators, networkAdmins } from './console-access.js';

const tag = { tags: ['messages'] };
/** Upload bodies are multipart only (http/multipart.ts refuses anything else). */
const consumes = ['multipart/form-data'];
const readUpload = readMultipartBody({ fileField: 'file', arrayFields: ['tags'] });

/**
 * The file part, documented beside the fields. It is read from the parts, never into the validated
 * fields, so the schema cannot require it: a request without it is a 422 naming body.file.
 */
const FilePart = (description: string) => Type.Optional(Type.Unsafe<string>({ type: 'string', format: 'binary', description }));

const ImageMessageBody = Type.Object(
  {
    file: FilePart(
      'Required: the image (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF), stored as JPEG, or PNG when it has transparency, with its metadata stripped',
    ),
    channelId: Id(),
    caption: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH })),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id()),
    fullImage: Type.Optional(Type.Boolean({ description: 'Also keep the original size (metadata stripped)' })),
  },
  { examples: [{ file: 'whiteboard.jpg', channelId: 'general', caption: 'Sprint plan', tags: ['planning'], fullImage: true }] },
);

const FileMessageBody = Type.Object(
  {
    file: FilePart('Required: the file, of any type, kept as uploaded'),
    channelId: Id(),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id()),
  },
  { examples: [{ file: 'q1-report.pdf', channelId: 'general', tags: ['reports'] }] },
);

export function registerMediaRoutes(app: TypedApp, deps: { media: MediaService }): void {
  const { media } = deps;

  app.post(
    '/messages/images',
    {
      config: { ...networkAdmins('sending messages as the admin'), audit: false },
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Create an image message (multipart: file, channelId, caption, tags, parentId, fullImage)',
        description:
          'Posts an image as the admin user; it is kept in small, medium and large sizes (and full with fullImage). An image the server cannot read is 400, one over the upload limit 413, a closed channel 409.',
        consumes,
        body: ImageMessageBody,
        response: answers(MessagesAnswer, { extraErrors: [409, 413] }),
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
      config: { ...networkAdmins('sending messages as the admin'), audit: false },
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Create a file message (multipart: file, channelId, tags, parentId)',
        description: 'Posts a file of any type as the admin user. A file over the upload limit is 413, a closed channel 409.',
        consumes,
        body: FileMessageBody,
        response: answers(MessagesAnswer, { extraErrors: [409, 413] }),
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
      config: moderators(CHANNEL_READ, 'reading messages', 'message'),
      schema: {
        ...tag,
        summary: 'Download an image message in one size (default medium)',
        description:
          'The image bytes, with an ETag (If-None-Match answers 304). `full` exists only when uploaded with fullImage; a deleted message or a missing size is 404.',
        params: MessageIdParams,
        querystring: Type.Object({ size: Type.Optional(StringEnum(IMAGE_SIZES)) }, { examples: [{ size: 'large' }] }),
        response: blobAnswers('image/*', 'The image, in the stored type (image/jpeg or image/png)'),
      },
    },
    async (request, reply) => {
      const blob = await media.openImage(request.params.messageId, request.query.size ?? 'medium');
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );

  app.get(
    '/messages/:messageId/files',
    {
      config: moderators(CHANNEL_READ, 'reading messages', 'message'),
      schema: {
        ...tag,
        summary: 'Download the file of a file message',
        description:
          'The file as uploaded, with its name in Content-Disposition and an ETag (If-None-Match answers 304). A deleted or non-file message is 404.',
        params: MessageIdParams,
        response: blobAnswers('*/*', 'The file, in the type it was uploaded with (application/octet-stream where that type is not safe to serve)'),
      },
    },
    async (request, reply) => {
      const blob = await media.openFile(request.params.messageId);
      reply.header('content-disposition', contentDispositionOf(blob.fileName ?? 'file'));
      reply.header('content-security-policy', "default-src 'none'; sandbox");
      return sendBlob(reply, request.headers['if-none-match'], blob);
    },
  );
}
