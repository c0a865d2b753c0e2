import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { Id, Metadata, Nullable, Segment, StringEnum, Tags } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { ChannelRecord, presentChannel } from '../../modules/channels/channels.present.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import { MessageRecord, presentMessage } from '../../modules/messages/messages.present.js';
import type { MessagesService } from '../../modules/messages/messages.service.js';
import { asJsonText, createdAnswer, MessageIdParams, messagesAnswer, MessagesAnswer, presentAuthorJson } from '../shared/message-answers.js';
import { CHANNEL_READ, moderators, networkAdmins } from './console-access.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['messages'] };
const PageSize = Type.Integer({ minimum: 1, maximum: 100 });

const CreateMessageBody = Type.Object(
  {
    channelId: Id('The channel to post in'),
    type: StringEnum(['text', 'custom']),
    data: Metadata('text: {"text": "..."} (at most 20,000 characters); custom: any JSON object up to 100 KB'),
    tags: Type.Optional(Tags()),
    parentId: Type.Optional(Id('Makes the message a comment of this message of the same channel')),
  },
  { examples: [{ channelId: 'general', type: 'text', data: { text: 'Standup moved to 10:30 today.' }, tags: ['announcement'] }] },
);

const QueryMessagesBody = Type.Object(
  {
    channelId: Id(),
    parentId: Type.Optional(Id('Only the comments of this message')),
    filterByParentId: Type.Optional(Type.Boolean({ description: 'true: only messages without a parent' })),
    tags: Type.Optional(Tags('Messages with any of these tags')),
    excludeTags: Type.Optional(Tags('Messages with none of these tags')),
    options: Type.Optional(
      Type.Object({
        after: Type.Optional(Segment),
        first: Type.Optional(PageSize),
        before: Type.Optional(Segment),
        last: Type.Optional(PageSize),
        token: Type.Optional(Type.String({ maxLength: 2048 })),
      }),
    ),
  },
  { examples: [{ channelId: 'general', filterByParentId: true, options: { last: 20 } }] },
);

const MessageAnswer = Type.Object(
  {
    channel: ChannelRecord,
    message: MessageRecord,
    user: Nullable(UserRecord, 'The author; null if the user no longer exists'),
  },
  {
    description: 'A message with its channel and author',
    examples: [{ channel: ChannelRecord.examples[0], message: MessageRecord.examples[0], user: UserRecord.examples[0] }],
  },
);

export function registerMessageRoutes(app: TypedApp, deps: { messages: MessagesService; clock: Clock }): void {
  const { messages, clock } = deps;

  app.post(
    '/message',
    {
      config: { ...networkAdmins('sending messages as the admin'), audit: false },
      schema: {
        ...tag,
        summary: 'Create a text or custom message',
        description:
          'Posts a message to a channel as the admin user, optionally as a comment of another message. A closed channel is 409; a blacklisted word or a link off the whitelist is 403.',
        consumes: JSON_AND_FORM,
        body: CreateMessageBody,
        response: answers(MessagesAnswer, { extraErrors: [409, 413] }),
      },
    },
    // The answer is the JSON text of the record already written to the outbox: Fastify sends it unserialized.
    async (request, reply) => createdAnswer(reply, await messages.createMessage(principalOf(request), request.body), presentAuthorJson),
  );

  app.post(
    '/messages',
    {
      config: { ...moderators(CHANNEL_READ, 'reading channels and their messages', 'channel'), audit: false },
      schema: {
        ...tag,
        summary: 'Query the messages of a channel',
        description:
          'Pages through the messages of a channel, oldest first within a page, with their authors. Filters by parent, tags and segment range; `options.token` continues a previous page.',
        consumes: JSON_AND_FORM,
        body: QueryMessagesBody,
        response: answers(MessagesAnswer),
      },
    },
    async (request, reply) => {
      const { rows, authors, paging } = await messages.query(request.body);
      return asJsonText(reply, messagesAnswer(rows.map(presentMessage), authors, paging));
    },
  );

  app.get(
    '/message/:messageId',
    {
      config: moderators(CHANNEL_READ, 'reading messages', 'message'),
      schema: {
        ...tag,
        summary: 'Get one message',
        description: 'One message, deleted ones included, with its channel and its author. An unknown message is 404.',
        params: MessageIdParams,
        response: answers(MessageAnswer),
      },
    },
    async (request) => {
      const { row, channel, author } = await messages.get(request.params.messageId);
      return { channel: presentChannel(channel, clock.now()), message: presentMessage(row), user: author ? presentUser(author) : null };
    },
  );

  app.delete(
    '/message/:messageId',
    {
      config: { ...moderators(['DELETE_MESSAGE'], 'deleting a message', 'message'), audit: 'message.delete' },
      schema: {
        ...tag,
        summary: 'Delete a message (soft)',
        description:
          'Marks the message deleted and empties its data; its image or file is removed. Answers the deleted message, also when it already was. An unknown message is 404.',
        params: MessageIdParams,
        response: answers(MessagesAnswer),
      },
    },
    async (request) => {
      const { record, author } = await messages.deleteMessage(principalOf(request), request.params.messageId, auditNoteOf(request));
      return messagesAnswer([record], [author]);
    },
  );
}
