import { bearerTokenOf } from '../../http/auth.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { installAudit } from '../shared/audit-hooks.js';
import { createRateLimiter } from '../../shared/rate-limit.js';
import { registerClientBasicsRoutes } from './basics.routes.js';
import { registerClientChannelRoutes } from './channels.routes.js';
import { registerClientMessageActionRoutes } from './message-actions.routes.js';
import { registerClientMessageRoutes } from './messages.routes.js';
import { registerClientModerationRoutes } from './moderation.routes.js';
import { clientRateGate } from './rate-limits.js';
import { registerSocialRoutes } from './social.routes.js';

/**
 * The client API under /client/v1: end-user apps with a user access token (docs/contract.md, Surfaces beyond the original),
 * each user limited per route class (rate-limits.ts), counted in Redis when set so instances share the budget.
 */
export function clientSurface(container: Container) {
  return async function client(scope: TypedApp): Promise<void> {
    const { clock } = container;
    const limiter = createRateLimiter({ redis: container.redis });
    scope.addHook('onClose', () => limiter.close());
    const rateGate = clientRateGate(limiter, container.config.clientRateLimits);
    // Before any body is read: who is calling, then whether they have budget left.
    scope.addHook('onRequest', async (request) => {
      request.principal = await container.authenticateUser(bearerTokenOf(request));
      await rateGate(request);
    });
    // Moderators' actions are recorded in the audit trail (before the routes: it names them as they register).
    installAudit(scope, { audit: container.audit, clock }, false);
    registerClientBasicsRoutes(scope, { inbox: container.inbox, clock });
    registerClientChannelRoutes(scope, { channels: container.channels, clock });
    registerClientModerationRoutes(scope, { moderator: container.moderator, moderation: container.moderation, users: container.users, clock });
    registerSocialRoutes(scope, { social: container.social });
    registerClientMessageActionRoutes(scope, { reactions: container.reactions, flags: container.messageFlags });
    registerClientMessageRoutes(scope, {
      messages: container.messages,
      media: container.media,
      sendRules: container.sendRules,
      moderator: container.moderator,
    });
  };
}
