import { Type } from '@sinclair/typebox';
import { principalOf } from '../../http/auth.js';
import { Id } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { MessageFlagsService } from '../../modules/reactions/message-flags.service.js';
import { ReactionName } from '../admin/reactions.routes.js';
import type { ReactionsService } from '../../modules/reactions/reactions.service.js';

const tag = { tags: ['client reactions and flags'] };
const MessageParams = Type.Object({ messageId: Id('The message id') });

/**
 * Reactions and flags on messages from the client API (API-CONVENTIONS.md section 6): only members of
 * the message's channel may use them (403 / 400301 otherwise); a missing or deleted message is 404.
 */
export function registerClientMessageActionRoutes(app: TypedApp, deps: { reactions: ReactionsService; flags: MessageFlagsService }): void {
  const { reactions, flags } = deps;

  app.post(
    '/messages/:messageId/reactions',
    { schema: { ...tag, summary: 'React to a message (once per name)', params: MessageParams, body: Type.Object({ reactionName: ReactionName() }) } },
    async (request) => {
      const { userId } = principalOf(request);
      await reactions.messageForMember(userId, request.params.messageId);
      const { reaction, summary } = await reactions.add({ userId, asMember: true }, request.params.messageId, request.body.reactionName);
      return { status: 'success' as const, addedId: reaction.id, reactions: summary.reactions, reactionsCount: summary.reactionsCount };
    },
  );

  app.delete(
    '/messages/:messageId/reactions/:reactionName',
    { schema: { ...tag, summary: "Remove the caller's reaction", params: Type.Object({ messageId: Id('The message id'), reactionName: ReactionName() }) } },
    async (request) => {
      const { userId } = principalOf(request);
      await reactions.messageForMember(userId, request.params.messageId);
      const { reaction, summary } = await reactions.remove({ userId, asMember: true }, request.params.messageId, request.params.reactionName);
      return { status: 'success' as const, removedId: reaction.id, reactions: summary.reactions, reactionsCount: summary.reactionsCount };
    },
  );

  app.post('/messages/:messageId/flag', { schema: { ...tag, summary: "Flag someone else's message (once per flagger)", params: MessageParams } }, async (request) => {
    const { flagged, flagCount } = await flags.flag(principalOf(request).userId, request.params.messageId);
    return { status: 'success' as const, flagged, flagCount };
  });
}
