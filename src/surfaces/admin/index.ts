import { requireToken } from '../../http/auth.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { installAudit } from '../shared/audit-hooks.js';
import { registerAdminTokenRoutes } from './admin-tokens.routes.js';
import { registerAuditRoutes } from './audit.routes.js';
import { registerChannelRoutes } from './channels.routes.js';
import { registerIdentityAdminRoutes } from './identity.routes.js';
import { registerMediaRoutes } from './media.routes.js';
import { registerMessageRoutes } from './messages.routes.js';
import { registerPrivacyRoutes } from './privacy.routes.js';
import { registerReactionRoutes } from './reactions.routes.js';
import { registerRetentionRoutes } from './retention.routes.js';
import { registerRoleRoutes } from './roles.routes.js';
import { registerRuleRoutes } from './rules.routes.js';
import { registerSessionRoutes } from './sessions.routes.js';
import { registerTestClockRoute } from './test-clock.routes.js';
import { registerUserRoutes } from './users.routes.js';
import { registerWebhookRoutes } from './webhooks.routes.js';

/** The administration API under /api/v2: admin tokens only, checked once for the whole surface. */
export function adminSurface(container: Container) {
  return async function admin(scope: TypedApp): Promise<void> {
    const { clock, identity } = container;
    scope.addHook('onRequest', requireToken(container.tokens, ['admin']));
    // Every write of this surface is recorded in the audit trail (before the routes: it names them as they register).
    installAudit(scope, { audit: container.audit, clock }, true);
    registerChannelRoutes(scope, { channels: container.channels, clock });
    registerMessageRoutes(scope, { messages: container.messages, clock });
    registerMediaRoutes(scope, { media: container.media });
    registerUserRoutes(scope, { users: container.users });
    registerRoleRoutes(scope, { roles: container.roles });
    registerRuleRoutes(scope, { rules: container.rules });
    registerReactionRoutes(scope, { reactions: container.reactions });
    registerIdentityAdminRoutes(scope, { clients: identity.clients, avatars: identity.avatars, tokens: container.tokens, users: container.users });
    registerSessionRoutes(scope, { credentials: identity.credentials });
    registerAdminTokenRoutes(scope, { tokens: container.tokens });
    registerWebhookRoutes(scope, { webhooks: container.webhooks });
    registerAuditRoutes(scope, { audit: container.audit });
    registerRetentionRoutes(scope, { retention: container.retention });
    registerPrivacyRoutes(scope, { privacy: container.privacy });
    if (container.config.testClock) registerTestClockRoute(scope, { clock });
  };
}
