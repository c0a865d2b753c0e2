import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { Id } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentUser } from '../../modules/users/users.present.js';
import { presentReactor, REFERENCE_TYPE } from '../../modules/reactions/reactions.present.js';
import { DEFAULT_MOST_REACTED_LIMIT, type ReactionsService } from '../../modules/reactions/reactions.service.js';

const tag = { tags: ['reactions'] };

/** A reaction name travels in client URL paths too, so it follows the id rules (no spaces, `/`, `?`, `#`, `%`). */
export const ReactionName = (description = 'The reaction, e.g. like') => Id(description);

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

const ReactionBody = Type.Object({
  referenceId: Id('The message id'),
  referenceType: ReferenceType,
  reactionName: ReactionName(),
});

/** SPEC.md's Reactions table, on the admin API: the admin reacts as its own admin user. */
export function registerReactionRoutes(app: TypedApp, deps: { reactions: ReactionsService }): void {
  const { reactions } = deps;

  app.post('/reactions', { schema: { ...tag, summary: 'React to a message as the admin', body: ReactionBody } }, async (request) => {
    requireMessageReference(request.body.referenceType, 'body.referenceType');
    const { reaction } = await reactions.add(principalOf(request), request.body.referenceId, request.body.reactionName);
    return { addedId: reaction.id };
  });

  app.delete('/reactions', { schema: { ...tag, summary: "Remove the admin's reaction", body: ReactionBody } }, async (request) => {
    requireMessageReference(request.body.referenceType, 'body.referenceType');
    const { reaction } = await reactions.remove(principalOf(request), request.body.referenceId, request.body.reactionName);
    return { removedId: reaction.id };
  });

  app.get(
    '/reactions',
    {
      schema: {
        ...tag,
        summary: 'The reactors of one message, in reaction order',
        querystring: Type.Object({
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
        }),
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
      schema: {
        ...tag,
        summary: 'The messages with the most reactions of one name, most first',
        querystring: Type.Object({
          reactionName: ReactionName(),
          limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: `0 or absent: ${DEFAULT_MOST_REACTED_LIMIT}` })),
        }),
      },
    },
    async (request) => reactions.mostReacted(request.query.reactionName, request.query.limit || DEFAULT_MOST_REACTED_LIMIT),
  );
}
