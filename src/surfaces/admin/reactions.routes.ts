import { adminActorOf } from '../../http/admin-admission.js';
import { channelScopeOf } from '../../modules/channels/channels.policy.js';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { AppError } from '../../shared/errors.js';
import { Id, ReactionName } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import { presentReactor, ReactionRecord, REFERENCE_TYPE } from '../../modules/reactions/reactions.present.js';
import { DEFAULT_MOST_REACTED_LIMIT, type ReactionsService } from '../../modules/reactions/reactions.service.js';
import { PagingRecord } from '../shared/message-answers.js';
import { bodyOrQuery } from './body-or-query.js';
import { CHANNEL_READ, moderators, networkAdmins } from './console-access.js';

const tag = { tags: ['reactions'] };

/** The largest `options.skip`; further pages are reached with `options.token`, which costs nothing per skipped row. */
export const MAX_REACTORS_SKIP = 10_000;

/**
 * referenceType is checked here rather than as a schema enum: a type other than `message` is a
 * parameters error (422), where an enum miss would be a 400.
 */
const ReferenceType = Type.String({ maxLength: 50, description: 'Only `message`' });

function requireMessageReference(referenceType: string | undefined, field: string): void {
  if (referenceType === undefined || referenceType === REFERENCE_TYPE) return;
  throw new AppError('parameters', `${field} must be "message".`, { detail: [{ field, message: 'must be "message"' }] });
}

const ReactorsQuery = Type.Object(
  {
    referenceId: Id('The message id'),
    referenceType: Type.Optional(ReferenceType),
    options: Type.Optional(
      Type.Object({
        reactionName: Type.Optional(ReactionName('Only reactors with this reaction')),
        skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_REACTORS_SKIP, description: 'Reactors to pass over (first page only)' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Reactors per page, default 20' })),
        token: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of a previous answer' })),
      }),
    ),
  },
  { examples: [{ referenceId: '67d3f5a5e4b0a1c2d3e4f501', referenceType: 'message', options: { reactionName: 'like', limit: 20 } }] },
);

const REACTION_EXAMPLE = { referenceId: '67d3f5a5e4b0a1c2d3e4f501', referenceType: 'message', reactionName: 'like' };

const ReactionBody = Type.Object(
  { referenceId: Id('The message id'), referenceType: ReferenceType, reactionName: ReactionName() },
  { examples: [REACTION_EXAMPLE] },
);

/** DELETE takes the three fields in its body or, as the original's 2023 API sends them, in the query string. */
const RemovedReaction = (where: string) =>
  Type.Object(
    {
      referenceId: Type.Optional(Id('The message id')),
      referenceType: Type.Optional(ReferenceType),
      reactionName: Type.Optional(ReactionName()),
    },
    { description: `Required, all three, ${where}`, examples: [REACTION_EXAMPLE] },
  );
const REACTION_FIELDS = ['referenceId', 'referenceType', 'reactionName'] as const;

const AddedAnswer = Type.Object(
  { addedId: Type.String({ description: 'The id of the new reaction' }) },
  { description: 'The reaction was added', examples: [{ addedId: '67d3f5a5e4b0a1c2d3e4f540' }] },
);
const RemovedAnswer = Type.Object(
  { removedId: Type.String({ description: 'The id of the removed reaction' }) },
  { description: 'The reaction was removed', examples: [{ removedId: '67d3f5a5e4b0a1c2d3e4f540' }] },
);

const ReactorsAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object({
      reactions: Type.Array(ReactionRecord, { description: 'One entry: the message asked for' }),
      users: Type.Array(UserRecord, { description: 'The reactors of this page, each once' }),
    }),
    paging: PagingRecord,
  },
  {
    description: "A page of a message's reactors",
    examples: [
      {
        status: 'success',
        data: {
          reactions: ReactionRecord.examples,
          users: [UserRecord.examples[0], { ...UserRecord.examples[0], userId: 'bob', username: 'bob', displayName: 'Bob Stone' }],
        },
        paging: { next: null, prev: null },
      },
    ],
  },
);

const MostReactedAnswer = Type.Array(
  Type.Object({ messageId: Type.String(), reactionsCount: Type.Integer({ description: 'Reactions of the asked name on the message' }) }),
  {
    description: 'Messages, most reactions first',
    examples: [
      [
        { messageId: '67d3f5a5e4b0a1c2d3e4f501', reactionsCount: 12 },
        { messageId: '67d3f5b1e4b0a1c2d3e4f502', reactionsCount: 7 },
      ],
    ],
  },
);

/** The reactions table of docs/contract.md, Admin API: the admin reacts as its own admin user. */
export function registerReactionRoutes(app: TypedApp, deps: { reactions: ReactionsService }): void {
  const { reactions } = deps;

  app.post(
    '/reactions',
    {
      config: { ...networkAdmins('reacting as the admin'), audit: 'reaction.add' },
      schema: {
        ...tag,
        summary: 'React to a message as the admin',
        description: "Adds the admin user's reaction of one name to a live message. The same reaction twice is 409; a deleted message is 404.",
        consumes: JSON_AND_FORM,
        body: ReactionBody,
        response: answers(AddedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      requireMessageReference(request.body.referenceType, 'body.referenceType');
      const { reaction } = await reactions.add(principalOf(request), request.body.referenceId, request.body.reactionName);
      return { addedId: reaction.id };
    },
  );

  app.delete(
    '/reactions',
    {
      config: { ...networkAdmins('reacting as the admin'), audit: 'reaction.remove' },
      schema: {
        ...tag,
        summary: "Remove the admin's reaction",
        description:
          "Removes the admin user's reaction of one name from a message. The fields go in the body or in the query string (not both). A reaction the admin has not made is 404.",
        consumes: JSON_AND_FORM,
        body: RemovedReaction('here or in the query string'),
        querystring: RemovedReaction('here or in the body'),
        response: answers(RemovedAnswer),
      },
    },
    async (request) => {
      const fields = bodyOrQuery(request.body, request.query, REACTION_FIELDS);
      requireMessageReference(fields.referenceType, request.body?.referenceType === undefined ? 'query.referenceType' : 'body.referenceType');
      const { reaction } = await reactions.remove(principalOf(request), fields.referenceId, fields.reactionName);
      return { removedId: reaction.id };
    },
  );

  app.get(
    '/reactions',
    {
      config: moderators(CHANNEL_READ, 'reading reactions', 'message'),
      schema: {
        ...tag,
        summary: 'The reactors of one message, in reaction order',
        description: 'Pages through the reactions on a live message with the users who made them, optionally of one name only. A deleted message is 404.',
        querystring: ReactorsQuery,
        response: answers(ReactorsAnswer),
      },
    },
    async (request) => {
      requireMessageReference(request.query.referenceType, 'query.referenceType');
      // Only the declared options: the query's other keys (options[messageId], say) must not reach the service.
      const { reactionName, skip, limit, token } = request.query.options ?? {};
      const { rows, users, paging } = await reactions.reactors({ messageId: request.query.referenceId, reactionName, skip, limit, token });
      return {
        status: 'success' as const,
        data: {
          reactions: [{ referenceId: request.query.referenceId, referenceType: REFERENCE_TYPE, reactors: rows.map(presentReactor) }],
          users: users.map(presentUser),
        },
        paging,
      };
    },
  );

  app.get(
    '/reactions/messages/most',
    {
      config: moderators(CHANNEL_READ, 'reading reactions'),
      schema: {
        ...tag,
        summary: 'The messages with the most reactions of one name, most first',
        description: 'Live messages ranked by how many reactions of the name they have, as a bare array.',
        querystring: Type.Object(
          {
            reactionName: ReactionName(),
            limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: `0 or absent: ${DEFAULT_MOST_REACTED_LIMIT}` })),
          },
          { examples: [{ reactionName: 'like', limit: 10 }] },
        ),
        response: answers(MostReactedAnswer),
      },
    },
    async (request) =>
      reactions.mostReacted(request.query.reactionName, request.query.limit || DEFAULT_MOST_REACTED_LIMIT, channelScopeOf(adminActorOf(request))),
  );
}
