import type fs from 'node:fs';
import type { BlobStore } from '../../storage/blobs.js';
import { notFound } from '../../shared/errors.js';
import { newObjectId } from '../../storage/ids.js';
import { labelTextsOf } from '../moderation-rules/user-texts.js';
import type { Clock } from '../../clock.js';
import { normalizeContentType, sanitizeFileName, servedContentType } from './files.js';
import { contentTypeOf, type ProcessedImage, processImage } from './images.js';
import { blobKeyOf, type ImageSize, type MessageMedia, parseMedia } from './messages.present.js';
import type { CreatedMessage, MessageActor, MessagesService, PreparedMessage } from './messages.service.js';

export interface ImageMessageInput {
  channelId: string;
  file: Buffer;
  caption?: string | undefined;
  tags?: string[] | undefined;
  parentId?: string | undefined;
  fullImage?: boolean | undefined;
  topicId?: string | null | undefined;
  /** The file already decoded (`decodeImage`), by a caller that had to know it is an image first. */
  decoded?: ProcessedImage | undefined;
}

export interface FileMessageInput {
  channelId: string;
  file: Buffer;
  fileName?: string | undefined;
  contentType?: string | undefined;
  tags?: string[] | undefined;
  parentId?: string | undefined;
  topicId?: string | null | undefined;
}

export interface OpenedBlob {
  stream: fs.ReadStream;
  size: number;
  contentType: string;
  /** Strong validator: a variant's bytes never change while it exists. */
  etag: string;
  fileName?: string;
}

/**
 * Image and file messages. Order of work: text guards (caption or file name, tags, topic), decoding,
 * blobs written (atomically), then the message row in its transaction; when anything after the first
 * blob fails, every blob of the request is removed again, so a failed request leaves neither a row
 * nor a file.
 */
export function createMediaService(deps: { messages: MessagesService; blobs: BlobStore; clock: Clock; maxImagePixels?: number }) {
  const { messages, blobs, clock } = deps;

  async function removeBlobs(keys: string[]): Promise<void> {
    await Promise.allSettled(keys.map((key) => blobs.delete(key)));
  }

  async function createWithBlobs(actor: MessageActor, message: PreparedMessage, entries: Array<[string, Buffer]>): Promise<CreatedMessage> {
    const keys = entries.map(([key]) => key);
    const writes = await Promise.allSettled(entries.map(([key, data]) => blobs.put(key, data)));
    const failed = writes.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) {
      await removeBlobs(keys);
      throw failed.reason;
    }
    try {
      return await messages.createPrepared(actor, message);
    } catch (error) {
      await removeBlobs(keys);
      throw error;
    }
  }

  async function openLive(messageId: string, kind: MessageMedia['kind']): Promise<MessageMedia> {
    const row = await messages.findLive(messageId);
    const media = parseMedia(row.media);
    if (!media || media.kind !== kind) throw notFound(kind === 'image' ? 'Image' : 'File');
    return media;
  }

  const decodeImage = (file: Buffer, keepFull: boolean): Promise<ProcessedImage> =>
    processImage(file, { keepFull, ...(deps.maxImagePixels ? { maxPixels: deps.maxImagePixels } : {}) });

  return {
    decodeImage,

    /** A file's name is text everyone in the channel sees: the guards judge it as they judge a caption. */
    async checkFileName(actor: MessageActor, channelId: string, given: string | undefined): Promise<void> {
      await messages.checkTexts(actor, channelId, [{ field: 'file', text: sanitizeFileName(given) }]);
    },

    async createImageMessage(actor: MessageActor, input: ImageMessageInput): Promise<CreatedMessage> {
      const caption = input.caption ?? '';
      const texts = labelTextsOf(input.tags, input.topicId, caption !== '' ? [{ field: 'caption', text: caption }] : []);
      if (texts.length > 0) await messages.checkTexts(actor, input.channelId, texts);
      const image = input.decoded ?? (await decodeImage(input.file, input.fullImage === true));
      const fileId = newObjectId(clock.now());
      const media: MessageMedia = { kind: 'image', fileId, format: image.format, sizes: [...image.variants.keys()], width: image.width, height: image.height };
      const entries = [...image.variants].map(([size, data]): [string, Buffer] => [blobKeyOf(fileId, size), data]);
      const message = {
        channelId: input.channelId,
        type: 'image' as const,
        data: { caption, fileId },
        tags: input.tags,
        parentId: input.parentId,
        topicId: input.topicId,
        media,
      };
      return createWithBlobs(actor, message, entries);
    },

    async createFileMessage(actor: MessageActor, input: FileMessageInput): Promise<CreatedMessage> {
      const fileId = newObjectId(clock.now());
      const fileName = sanitizeFileName(input.fileName);
      await messages.checkTexts(actor, input.channelId, labelTextsOf(input.tags, input.topicId, [{ field: 'file', text: fileName }]));
      const contentType = normalizeContentType(input.contentType);
      const media: MessageMedia = { kind: 'file', fileId, name: fileName, contentType, size: input.file.length };
      const data = { fileId, fileName, contentType, size: input.file.length };
      const message = { channelId: input.channelId, type: 'file' as const, data, tags: input.tags, parentId: input.parentId, topicId: input.topicId, media };
      return createWithBlobs(actor, message, [[blobKeyOf(fileId, 'file'), input.file]]);
    },

    async openImage(messageId: string, size: ImageSize): Promise<OpenedBlob> {
      const media = await openLive(messageId, 'image');
      if (media.kind !== 'image' || !media.sizes.includes(size)) {
        throw notFound(size === 'full' ? 'Full-size image (upload with fullImage true)' : 'Image');
      }
      const opened = await blobs.open(blobKeyOf(media.fileId, size));
      if (!opened) throw notFound('Image');
      return { ...opened, contentType: contentTypeOf(media.format), etag: `"${media.fileId}-${size}"` };
    },

    async openFile(messageId: string): Promise<OpenedBlob> {
      const media = await openLive(messageId, 'file');
      if (media.kind !== 'file') throw notFound('File');
      const opened = await blobs.open(blobKeyOf(media.fileId, 'file'));
      if (!opened) throw notFound('File');
      return { ...opened, contentType: servedContentType(media.contentType), etag: `"${media.fileId}"`, fileName: media.name };
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
