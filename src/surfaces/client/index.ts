import { bearerTokenOf } from '../../http/auth.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { registerClientBasicsRoutes } from './basics.routes.js';
import { registerClientMessageActionRoutes } from './message-actions.routes.js';
import { registerClientMessageRoutes } from './messages.routes.js';
import { registerClientModerationRoutes } from './moderation.routes.js';
import { registerSocialRoutes } from './social.routes.js';

/** The client API under /client/v1: end-user apps with a user access token (API-CONVENTIONS.md section 6). */
export function clientSurface(container: Container) {
  return async function client(scope: TypedApp): Promise<void> {
    const { clock, permissions } = container;
    scope.addHook('onRequest', async (request) => {
      request.principal = await container.authenticateUser(bearerTokenOf(request));
    });
    registerClientBasicsRoutes(scope, { client: container.client, clock });
    registerClientModerationRoutes(scope, { moderator: container.moderator, users: container.users, clock });
    registerSocialRoutes(scope, { social: container.social });
    registerClientMessageActionRoutes(scope, { reactions: container.reactions, flags: container.messageFlags });
    registerClientMessageRoutes(scope, { messages: container.messages, media: container.media, sendRules: container.sendRules, permissions });
  };
}
