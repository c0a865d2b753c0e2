import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { AppError, notFound } from '../../http/errors.js';
import { ChannelIdParams, Id, IdList } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentChannel } from '../../modules/channels/channels.present.js';
import { type ChannelsService, MAX_MUTE_PERIOD_MS } from '../../modules/channels/channels.service.js';
import type { Permission } from '../../modules/roles/permissions.js';
import type { PermissionsService } from '../../modules/roles/permissions.service.js';
import type { UsersService } from '../../modules/users/users.service.js';

const tag = { tags: ['client moderation'] };
const UserIds = Type.Object({ userIds: IdList('Users to act on', 1) });
const MutePeriod = Type.Integer({ minimum: 0, maximum: MAX_MUTE_PERIOD_MS });

/**
 * Moderation from the client API: the same channel actions as the admin API, allowed to a user
 * whose roles grant the matching permission of the catalogue, and to nobody else (403 / 400301).
 */
export function registerClientModerationRoutes(
  app: TypedApp,
  deps: { channels: ChannelsService; users: UsersService; permissions: PermissionsService; clock: Clock },
): void {
  const { channels, permissions } = deps;

  /**
   * The permission, and a channel a moderator may act on. A bot's conversation with a user answers as a
   * missing channel does, whatever the caller's roles: its id follows from the two user ids, and a
   * moderator who could add themselves to it would read the bot's private messages.
   */
  async function requireChannelPermission(userId: string, permission: Permission, channelId: string): Promise<void> {
    await permissions.require(userId, permission, channelId);
    if (await channels.isConversation(channelId)) throw notFound('Channel');
  }

  app.put(
    '/channels/:channelId',
    { schema: { ...tag, summary: 'Rename a channel (EDIT_CHANNEL)', params: ChannelIdParams, body: Type.Object({ displayName: Type.String({ maxLength: 200 }) }) } },
    async (request) => {
      await requireChannelPermission(principalOf(request).userId, 'EDIT_CHANNEL', request.params.channelId);
      const channel = await channels.setDisplayName(request.params.channelId, request.body.displayName);
      return { channel: presentChannel(channel, deps.clock.now()) };
    },
  );

  app.post('/channels/:channelId/users', { schema: { ...tag, summary: 'Add members (ADD_CHANNEL_USER)', params: ChannelIdParams, body: UserIds } }, async (request) => {
    await requireChannelPermission(principalOf(request).userId, 'ADD_CHANNEL_USER', request.params.channelId);
    await channels.addUsers(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.delete('/channels/:channelId/users', { schema: { ...tag, summary: 'Remove members (REMOVE_CHANNEL_USER)', params: ChannelIdParams, body: UserIds } }, async (request) => {
    await requireChannelPermission(principalOf(request).userId, 'REMOVE_CHANNEL_USER', request.params.channelId);
    await channels.removeUsers(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.post('/channels/:channelId/users/ban', { schema: { ...tag, summary: 'Ban from a channel (BAN_USER_FROM_CHANNEL)', params: ChannelIdParams, body: UserIds } }, async (request) => {
    await requireChannelPermission(principalOf(request).userId, 'BAN_USER_FROM_CHANNEL', request.params.channelId);
    await channels.ban(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.post('/channels/:channelId/users/unban', { schema: { ...tag, summary: 'Unban (BAN_USER_FROM_CHANNEL)', params: ChannelIdParams, body: UserIds } }, async (request) => {
    await requireChannelPermission(principalOf(request).userId, 'BAN_USER_FROM_CHANNEL', request.params.channelId);
    await channels.unban(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.put(
    '/channels/:channelId/mute',
    { schema: { ...tag, summary: 'Mute a channel (MUTE_CHANNEL)', params: ChannelIdParams, body: Type.Object({ mutePeriod: MutePeriod }) } },
    async (request) => {
      await requireChannelPermission(principalOf(request).userId, 'MUTE_CHANNEL', request.params.channelId);
      await channels.mute(request.params.channelId, request.body.mutePeriod);
      return { success: true };
    },
  );

  app.put(
    '/channels/:channelId/users/mute',
    {
      schema: {
        ...tag,
        summary: 'Mute members (MUTE_USER_INSIDE_CHANNEL)',
        params: ChannelIdParams,
        body: Type.Object({ mutePeriod: MutePeriod, userIds: IdList('Members', 1) }),
      },
    },
    async (request) => {
      await requireChannelPermission(principalOf(request).userId, 'MUTE_USER_INSIDE_CHANNEL', request.params.channelId);
      await channels.muteUsers(request.params.channelId, request.body.userIds, request.body.mutePeriod);
      return { success: true };
    },
  );

  app.post('/channels/:channelId/close', { schema: { ...tag, summary: 'Close a channel (CLOSE_CHANNEL)', params: ChannelIdParams } }, async (request) => {
    await requireChannelPermission(principalOf(request).userId, 'CLOSE_CHANNEL', request.params.channelId);
    await channels.close(request.params.channelId);
    return { status: 'success' as const };
  });

  app.post('/users/:userId/ban', { schema: { ...tag, summary: 'Ban a user globally (BAN_USER)', params: Type.Object({ userId: Id() }) } }, async (request) => {
    await permissions.require(principalOf(request).userId, 'BAN_USER', null);
    await deps.users.setGlobalBan(request.params.userId, true);
    return { status: 'success' as const };
  });

  app.post('/users/:userId/flag', { schema: { ...tag, summary: 'Flag a user (once per flagger)', params: Type.Object({ userId: Id() }) } }, async (request) => {
    const flagger = principalOf(request).userId;
    if (flagger === request.params.userId) throw new AppError('badRequest', 'You cannot flag yourself.');
    const added = await deps.users.flag(flagger, request.params.userId);
    return { status: 'success' as const, flagged: added };
  });
}
