import { Type } from '@sinclair/typebox';
import { IMAGE_SIZES } from '../../modules/messages/messages.present.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { Id, Metadata, Segment, StringEnum, Tags } from '../../shared/schemas.js';
import { blobAnswers } from '../shared/send-blob.js';

/** Request and answer schemas of the client API's message routes (messages.routes.ts). */

/** A topic id: like any id, but empty is allowed and means the channel's main topic. */
export const TopicId = (description: string) => Type.String({ maxLength: 50, pattern: '^[^\\s/?#%\\\\]*$', description });

const PageSize = Type.Integer({ minimum: 1, maximum: 100 });

export const MessagesQuery = Type.Object(
  {
    after: Type.Optional({ ...Segment, description: 'With first: the first messages whose channelSegment is above this' }),
    first: Type.Optional({ ...PageSize, description: 'How many messages after `after`' }),
    before: Type.Optional({ ...Segment, description: 'With last: the last messages whose channelSegment is below this' }),
    last: Type.Optional({ ...PageSize, description: 'How many of the newest (or before `before`) messages; default 20' }),
    token: Type.Optional(Type.String({ maxLength: 2048, description: 'Continues a previous page (paging.next or paging.prev)' })),
    parentId: Type.Optional(Id('Only the comments of this message')),
    filterByParentId: Type.Optional(Type.Boolean({ description: 'true: only messages without a parent' })),
    tags: Type.Optional(Tags('Messages with any of these tags')),
    excludeTags: Type.Optional(Tags('Messages with none of these tags')),
    topicId: Type.Optional(TopicId("Only this topic's messages; empty: the main topic only")),
    tid: Type.Optional(TopicId('Same as topicId (the bot API name)')),
  },
  { examples: [{ last: 20 }, { after: 1260, first: 20, filterByParentId: true }] },
);

export const NewMessageBody = Type.Object(
  {
    type: StringEnum(['text', 'custom'], 'text or custom; images and files go to /images and /files'),
    data: Metadata('text: {"text": "..."} (at most 20,000 characters); custom: any JSON object up to 100 KB'),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id('Makes the message a comment of this message of the same channel')),
    topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
  },
  {
    examples: [
      { type: 'text', data: { text: 'Standup moved to 10:30 today.' }, tags: ['announcement'] },
      { type: 'custom', data: { kind: 'poll', question: 'Lunch at noon?', options: ['yes', 'no'] }, parentId: '67d3f5a5e4b0a1c2d3e4f501' },
    ],
  },
);

/** The uploaded part of a multipart body; not part of the validated fields, so optional to the schema. */
const FilePart = (description: string) => Type.Optional(Type.String({ contentMediaType: 'application/octet-stream', description }));

export const ImageUploadBody = Type.Object(
  {
    file: FilePart('Required: the image (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF); served as JPEG, or PNG when it has transparency'),
    caption: Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH })),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id()),
    fullImage: Type.Optional(Type.Boolean({ description: 'Also keep the original size (metadata stripped)' })),
    topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
  },
  { examples: [{ caption: 'The new office', tags: ['photos'], fullImage: true }] },
);

export const FileUploadBody = Type.Object(
  {
    file: FilePart('Required: the file, with its name and content type'),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id()),
    topicId: Type.Optional(TopicId('The topic to post in; absent or empty: the main topic')),
  },
  { examples: [{ tags: ['reports'] }] },
);

export const ImageQuery = Type.Object({
  size: Type.Optional(StringEnum(IMAGE_SIZES, 'small, medium (default), large, or full (when uploaded with fullImage)')),
});

export const ImageDownloadAnswers = blobAnswers(
  'image/*',
  'The image in the size asked for (image/jpeg, or image/png when it has transparency), with its ETag',
);

export const FileDownloadAnswers = blobAnswers(
  '*/*',
  'The file under its own content type (application/octet-stream for types a browser could run), as an attachment',
);
