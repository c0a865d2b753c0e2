import { type TObject, Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { MessageRecord } from '../../modules/messages/messages.present.js';
import type { CreatedMessage } from '../../modules/messages/messages.service.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import type { UserRow } from '../../modules/users/users.types.js';
import type { Paging } from '../../shared/paging.js';
import { Id, Nullable } from '../../shared/schemas.js';

/** Message answers shared by the admin, client and bot surfaces (docs/contract.md, Records). */
export const MessageIdParams = Type.Object({ messageId: Id('The message id') });

/** `paging` of a list answer: the tokens of the neighbouring pages, null at either end. */
export const PagingRecord = Type.Object(
  {
    next: Nullable(Type.String(), 'Token of the next page (options.token); null on the last page'),
    prev: Nullable(Type.String(), 'Token of the previous page; null on the first page'),
  },
  { description: 'Page tokens', examples: [{ next: 'eyJhIjoxMjgwfQ.x3Jf', prev: null }] },
);

/** A schema's first example, as a one-item list; none if it has no example. */
const exampleListOf = (schema: TObject): unknown[] => (schema.examples as unknown[] | undefined)?.slice(0, 1) ?? [];

/**
 * The answer of message queries and creates, `{status, data: {messages, users}, paging}`, with the
 * authors in `users` presented by `user` (the admin API's full record, or a surface's narrower one).
 * The example is built from the two record schemas' first examples: give `user` an example whose
 * userId is the message example's author ('alice').
 */
export function messagesAnswerOf<User extends TObject>(user: User) {
  return Type.Object(
    {
      status: Type.Literal('success'),
      data: Type.Object({
        messages: Type.Array(MessageRecord),
        users: Type.Array(user, { description: 'The authors of the messages, each once' }),
      }),
      paging: PagingRecord,
    },
    {
      description: 'Messages and their authors',
      examples: [
        {
          status: 'success',
          data: { messages: exampleListOf(MessageRecord), users: exampleListOf(user) },
          paging: { next: null, prev: null },
        },
      ],
    },
  );
}

/** The admin API's message answer: authors as full user records. */
export const MessagesAnswer = messagesAnswerOf(UserRecord);

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

/** The answer of message queries and creates (docs/contract.md, Records): each author once. */
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
/**
 * Answers a message page as JSON text written by JSON.stringify, not by the route's compiled serializer.
 * A page is 50 records of open `data` objects and nullable fields; fast-json-stringify checks each
 * nullable value against its branches and hands each `data` to JSON.stringify anyway, which made the
 * admin page read about a tenth slower in CPU than stringifying the whole answer. The route still
 * declares the answer's schema, and the tests check the text against it.
 */
export function asJsonText(reply: FastifyReply, answer: unknown): string {
  reply.type('application/json; charset=utf-8');
  return JSON.stringify(answer);
}

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

export const presentAuthorJson = cachedJson(presentUser);
