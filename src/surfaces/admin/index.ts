import { admitConsoleUser } from '../../http/admin-admission.js';
import { requireToken } from '../../http/auth.js';
import { CONSOLE_CLIENT_ID } from '../../modules/identity/console-client.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { Container } from '../../container.js';
import { installAudit } from '../shared/audit-hooks.js';
import { registerAdminTokenRoutes } from './admin-tokens.routes.js';
import { registerAuditRoutes } from './audit.routes.js';
import { registerChannelRoutes } from './channels.routes.js';
import { authorizeConsoleRoute, installConsoleGuards } from './console-access.js';
import { registerIdentityAdminRoutes } from './identity.routes.js';
import { registerLiveSessionRoutes } from './live-sessions.routes.js';
import { registerMediaRoutes } from './media.routes.js';
import { registerMeRoute } from './me.routes.js';
import { registerMessageRoutes } from './messages.routes.js';
import { registerModerationQueueRoutes } from './moderation-queue.routes.js';
import { registerPasswordResetRoutes } from './password-resets.routes.js';
import { registerPrivacyRoutes } from './privacy.routes.js';
import { registerReactionRoutes } from './reactions.routes.js';
import { registerRetentionRoutes } from './retention.routes.js';
import { registerRoleRoutes } from './roles.routes.js';
import { registerRuleRoutes } from './rules.routes.js';
import { registerSessionRoutes } from './sessions.routes.js';
import { registerTestClockRoute } from './test-clock.routes.js';
import { registerStatusRoutes } from './status.routes.js';
import { registerUserInsightRoutes } from './user-insights.routes.js';
import { registerUserRoutes } from './users.routes.js';
import { registerWebhookRoutes } from './webhooks.routes.js';

/**
 * The administration API under /api/v2, checked once for the whole surface: admin tokens, and the
 * console's user tokens of network admins and moderators, whom console-access.ts limits route by route.
 */
export function adminSurface(container: Container) {
  return async function admin(scope: TypedApp): Promise<void> {
    const { clock, identity } = container;
    const findUser = (userId: string) => container.users.findById(userId);
    const admitConsole = admitConsoleUser({
      consoleClientId: CONSOLE_CLIENT_ID,
      findUser,
      globalPermissionsOf: (userId) => container.permissions.permissionsOf(userId, null),
      authorizeRoute: authorizeConsoleRoute,
    });
    scope.addHook('onRequest', requireToken(container.tokens, ['admin'], admitConsole));
    installConsoleGuards(scope, {
      findUser,
      findChannel: (channelId) => container.channels.find(channelId),
      channelOfMessage: (messageId) => container.messages.channelOf(messageId),
    });
    // Every write of this surface is recorded in the audit trail (before the routes: it names them as they register).
    installAudit(scope, { audit: container.audit, clock }, true);
    registerChannelRoutes(scope, { channels: container.channels, clock, bans: container.bans });
    registerMessageRoutes(scope, { messages: container.messages, clock });
    registerMediaRoutes(scope, { media: container.media });
    registerUserRoutes(scope, { users: container.users, bans: container.bans });
    registerRoleRoutes(scope, { roles: container.roles });
    registerRuleRoutes(scope, { rules: container.rules });
    registerReactionRoutes(scope, { reactions: container.reactions });
    registerIdentityAdminRoutes(scope, { clients: identity.clients, avatars: identity.avatars, tokens: container.tokens, users: container.users });
    registerSessionRoutes(scope, { credentials: identity.credentials });
    registerPasswordResetRoutes(scope, { passwordResets: identity.passwordResets, publicUrl: identity.publicUrl });
    registerLiveSessionRoutes(scope, { liveSessions: container.liveSessions });
    registerAdminTokenRoutes(scope, { tokens: container.tokens });
    registerWebhookRoutes(scope, { webhooks: container.webhooks });
    registerMeRoute(scope, { users: container.users });
    registerAuditRoutes(scope, { audit: container.audit });
    registerModerationQueueRoutes(scope, { queue: container.moderationQueue, publicUrl: container.config.publicUrl });
    registerRetentionRoutes(scope, { retention: container.retention });
    registerPrivacyRoutes(scope, { privacy: container.privacy });
    registerUserInsightRoutes(scope, {
      users: container.users,
      messages: container.messages,
      tray: {
        inspect: container.trayInspector,
        enabled: container.tray.options.enabled,
        present: { networkId: container.tray.options.networkId, publicUrl: container.tray.options.publicUrl },
      },
    });
    registerStatusRoutes(scope, { stats: container.stats });
    if (container.config.testClock) registerTestClockRoute(scope, { clock });
  };
}
