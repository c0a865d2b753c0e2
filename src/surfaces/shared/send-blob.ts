import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { answers } from '../../http/responses.js';
import type { OpenedBlob } from '../../modules/messages/media.service.js';

/**
 * `response` of a download route: the bytes under `mediaType` (an image type range, or the any-type
 * range for a file kept as uploaded), 304 when If-None-Match names the current ETag, and the error
 * envelope. The bytes are streamed, never serialized: the schema only documents them.
 */
export function blobAnswers(mediaType: string, description: string) {
  // The error answers every route shares; the JSON success they come with is replaced by the bytes.
  const errors: Record<number, unknown> = { ...answers(Type.Null()) };
  delete errors[200];
  return {
    200: {
      description,
      headers: { etag: { type: 'string', description: 'Strong validator of these bytes, for If-None-Match' } },
      content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
    },
    // `null`: the document then lists no body for it.
    304: { type: 'null', description: 'Not modified: If-None-Match named the current ETag (no body)' },
    ...errors,
  };
}

/** Sends a blob with its validators; used by the admin and client downloads. */
export function sendBlob(reply: FastifyReply, ifNoneMatch: string | undefined, blob: OpenedBlob): FastifyReply {
  reply
    .header('content-type', blob.contentType)
    .header('x-content-type-options', 'nosniff')
    .header('etag', blob.etag)
    // Behind a token and removed on delete: cacheable by the caller, never by shared caches.
    .header('cache-control', 'private, max-age=3600');
  if (ifNoneMatch?.split(',').some((tagValue) => tagValue.trim() === blob.etag)) {
    blob.stream.destroy();
    return reply.code(304).send();
  }
  return reply.header('content-length', blob.size).send(blob.stream);
}
