import type { TSchema } from '@sinclair/typebox';
import { messagesAnswerOf } from '../shared/message-answers.js';
import { PublicUserRecord } from './public-user.present.js';

/** The first example of a record schema, to build the examples of the answers that hold it. */
export const exampleOf = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];

/** The client API's message answer: authors as other members see them. */
export const ClientMessagesAnswer = messagesAnswerOf(PublicUserRecord);
