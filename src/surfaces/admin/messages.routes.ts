import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import type { Paging } from '../../http/paging.js';
import { Id, Metadata, Segment, StringEnum, Tags } from '../../http/schemas.js';
import { HANDS_EVENTS_ITSELF, type TypedApp } from '../../http/typed-app.js';
import { presentChannel } from '../../modules/channels/channels.present.js';
import { presentUser } from '../../modules/users/users.present.js';
import type { UserRow } from '../../modules/users/users.store.js';
import { type MessageRecord, presentMessage } from '../../modules/messages/messages.present.js';
import type { CreatedMessage, MessagesService } from '../../modules/messages/messages.service.js';

const tag = { tags: ['messages'] };
export const MessageIdParams = Type.Object({ messageId: Id('The message id') });
const PageSize = Type.Integer({ minimum: 1, maximum: 100 });

/**
 * Presented authors by row object. A group commit reads the author once for its whole batch and
 * hands the same row to every create in it, so the record is built once per batch, not per answer.
 * Rows are never mutated after they are read; entries go with their row.
 */
const presentedAuthors = new WeakMap<UserRow, ReturnType<typeof presentUser>>();
function presentAuthor(row: UserRow): ReturnType<typeof presentUser> {
  let record = presentedAuthors.get(row);
  if (record === undefined) {
    record = presentUser(row);
    presentedAuthors.set(row, record);
  }
  return record;
}

/** The answer of message queries and creates (API-CONVENTIONS.md section 3): each author once. */
export function messagesAnswer(messages: MessageRecord[], authors: Array<UserRow | undefined>, paging: Paging = { next: null, prev: null }) {
  const users = new Map<string, UserRow>();
  for (const author of authors) if (author) users.set(author.id, author);
  return {
    status: 'success' as const,
    data: { messages, users: [...users.values()].map(presentAuthor) },
    paging,
  };
}

/** A presenter whose JSON text is kept per row object (a batch hands the same author row to each create). */
export function cachedJson<Row extends object>(present: (row: Row) => unknown): (row: Row) => string {
  const texts = new WeakMap<Row, string>();
  return (row) => {
    let text = texts.get(row);
    if (text === undefined) {
      text = JSON.stringify(present(row));
      texts.set(row, text);
    }
    return text;
  };
}

/**
 * `messagesAnswer([record], [author])` of a create, as the JSON text it serializes to, which Fastify
 * sends unchanged: the record's text is the one already written to the outbox, and the author's is
 * kept per row, so the busiest answer in the server is one string concatenation.
 */
export function createdAnswer(reply: FastifyReply, created: CreatedMessage, authorJson: (row: UserRow) => string): string {
  reply.type('application/json; charset=utf-8');
  const users = created.author ? authorJson(created.author) : '';
  return `{"status":"success","data":{"messages":[${created.recordJson}],"users":[${users}]},"paging":{"next":null,"prev":null}}`;
}

const presentAuthorJson = cachedJson(presentUser);

export function registerMessageRoutes(app: TypedApp, deps: { messages: MessagesService; clock: Clock }): void {
  const { messages, clock } = deps;

  app.post(
    '/message',
    {
      config: HANDS_EVENTS_ITSELF,
      schema: {
        ...tag,
        summary: 'Create a text or custom message',
        body: Type.Object({
          channelId: Id('The channel to post in'),
          type: StringEnum(['text', 'custom']),
          data: Metadata('text: {"text": "..."} (at most 20,000 characters); custom: any JSON object up to 100 KB'),
          tags: Type.Optional(Tags()),
          parentId: Type.Optional(Id('Makes the message a comment of this message of the same channel')),
        }),
      },
    },
    async (request, reply) => createdAnswer(reply, await messages.createMessage(principalOf(request), request.body), presentAuthorJson),
  );

  app.post(
    '/messages',
    {
      schema: {
        ...tag,
        summary: 'Query the messages of a channel',
        body: Type.Object({
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
        }),
      },
    },
    async (request) => {
      const { rows, authors, paging } = await messages.query(request.body);
      return messagesAnswer(rows.map(presentMessage), authors, paging);
    },
  );

  app.get('/message/:messageId', { schema: { ...tag, summary: 'Get one message', params: MessageIdParams } }, async (request) => {
    const { row, channel, author } = await messages.get(request.params.messageId);
    return { channel: presentChannel(channel, clock.now()), message: presentMessage(row), user: author ? presentUser(author) : null };
  });

  app.delete('/message/:messageId', { schema: { ...tag, summary: 'Delete a message (soft)', params: MessageIdParams } }, async (request) => {
    const { record, author } = await messages.deleteMessage(principalOf(request), request.params.messageId);
    return messagesAnswer([record], [author]);
  });
}
