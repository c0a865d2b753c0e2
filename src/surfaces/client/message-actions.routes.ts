import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { Id, ReactionCounts } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { MessageFlagsService } from '../../modules/flags/message-flags.service.js';
import { ReactionName } from '../../shared/schemas.js';
import type { ReactionsService } from '../../modules/reactions/reactions.service.js';

const tag = { tags: ['client reactions and flags'] };
const MessageParams = Type.Object({ messageId: Id('The message id') });

const counts = {
  reactions: ReactionCounts('How many reactions of each name the message has after the change'),
  reactionsCount: Type.Integer({ description: 'All reactions on the message after the change' }),
};

const ReactionBody = Type.Object({ reactionName: ReactionName() }, { examples: [{ reactionName: 'like' }] });

const AddedAnswer = Type.Object(
  { status: Type.Literal('success'), addedId: Type.String({ description: 'The id of the new reaction' }), ...counts },
  {
    description: "The reaction, and the message's counts",
    examples: [{ status: 'success', addedId: '67d3f5a5e4b0a1c2d3e4f540', reactions: { like: 3, heart: 1 }, reactionsCount: 4 }],
  },
);

const RemovedAnswer = Type.Object(
  { status: Type.Literal('success'), removedId: Type.String({ description: 'The id of the reaction removed' }), ...counts },
  {
    description: "The reaction removed, and the message's counts",
    examples: [{ status: 'success', removedId: '67d3f5a5e4b0a1c2d3e4f540', reactions: { like: 2, heart: 1 }, reactionsCount: 3 }],
  },
);

const FlagAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    flagged: Type.Boolean({ description: 'true when this call added the flag; false when the caller had flagged the message already' }),
    flagCount: Type.Integer({ description: 'How many users flagged the message' }),
  },
  { description: 'The flag and the count', examples: [{ status: 'success', flagged: true, flagCount: 2 }] },
);

/** The optional body of a flag; absent or empty flags without a reason. */
export const FlagBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Why the caller flags, for the moderators (1-500 characters, trimmed; whitespace alone is refused)',
      }),
    ),
  },
  { examples: [{ reason: 'Insults another member' }, {}] },
);

const MEMBERS_ONLY = '403 (400301) for a caller who is not a member of the channel; 404 for a missing or deleted message.';

/**
 * Reactions and flags on messages from the client API (docs/contract.md, Surfaces beyond the original): only members of
 * the message's channel may use them (403 / 400301 otherwise); a missing or deleted message is 404.
 */
export function registerClientMessageActionRoutes(app: TypedApp, deps: { reactions: ReactionsService; flags: MessageFlagsService }): void {
  const { reactions, flags } = deps;

  app.post(
    '/messages/:messageId/reactions',
    {
      schema: {
        ...tag,
        summary: 'React to a message (once per name)',
        description: `Adds the caller's reaction of this name. ${MEMBERS_ONLY} 409 (400315) when the caller already reacted with it.`,
        consumes: JSON_AND_FORM,
        params: MessageParams,
        body: ReactionBody,
        response: answers(AddedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { userId } = principalOf(request);
      await reactions.messageForMember(userId, request.params.messageId);
      const { reaction, summary } = await reactions.add({ userId, asMember: true }, request.params.messageId, request.body.reactionName);
      return { status: 'success' as const, addedId: reaction.id, reactions: summary.reactions, reactionsCount: summary.reactionsCount };
    },
  );

  app.delete(
    '/messages/:messageId/reactions/:reactionName',
    {
      schema: {
        ...tag,
        summary: "Remove the caller's reaction",
        description: `Removes the caller's reaction of this name. ${MEMBERS_ONLY} 404 too when the caller has no such reaction.`,
        params: Type.Object({ messageId: Id('The message id'), reactionName: ReactionName() }),
        response: answers(RemovedAnswer),
      },
    },
    async (request) => {
      const { userId } = principalOf(request);
      await reactions.messageForMember(userId, request.params.messageId);
      const { reaction, summary } = await reactions.remove({ userId, asMember: true }, request.params.messageId, request.params.reactionName);
      return { status: 'success' as const, removedId: reaction.id, reactions: summary.reactions, reactionsCount: summary.reactionsCount };
    },
  );

  app.post(
    '/messages/:messageId/flag',
    {
      schema: {
        ...tag,
        summary: "Flag someone else's message (once per flagger)",
        description: `Flags the message for moderators, with an optional reason they read in the moderation queue; the body may be absent or empty. Flagging it again changes nothing, its first reason included. ${MEMBERS_ONLY} 400 for the caller's own message; 422 for a reason that is empty once trimmed or over 500 characters.`,
        consumes: JSON_AND_FORM,
        params: MessageParams,
        body: FlagBody,
        response: answers(FlagAnswer),
      },
    },
    async (request) => {
      const { flagged, flagCount } = await flags.flag(principalOf(request).userId, request.params.messageId, request.body.reason);
      return { status: 'success' as const, flagged, flagCount };
    },
  );
}
