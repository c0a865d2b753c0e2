import { maySeeChannel } from '../channels/channels.policy.js';
import { requireMayDeleteMessage } from '../messages/messages.policy.js';
import type { Actor } from '../roles/admin-actor.js';
import { requireMayActOnUsers } from '../users/users.policy.js';
import { notFound } from '../../shared/errors.js';
import type { AuditNote } from '../audit/audit.types.js';
import type { BanCommands } from '../bans/bans.commands.js';
import type { ChannelsService } from '../channels/channels.service.js';
import type { ChannelRow } from '../channels/channels.types.js';
import type { MessageActor } from '../messages/create-messages.js';
import type { MessagesService } from '../messages/messages.service.js';
import type { Permission } from '../roles/permissions.js';
import type { PermissionsService } from '../roles/permissions.service.js';
import type { UsersService } from '../users/users.service.js';

/** The user acting as a moderator. */
export interface ModeratorActor {
  userId: string;
}

/** A client API user, as the policies see them: their rights come from roles, never every right. */
const asMember = (actor: ModeratorActor): Actor => ({ kind: 'member', userId: actor.userId });

/** The text guard (ModerationService.guard) for a text a moderator writes; refuses by throwing. */
export type ModeratorTextGuard = (actor: ModeratorActor, input: { texts: Array<{ field: string; text: string }> }) => void | Promise<void>;

export interface ModeratorDeps {
  channels: ChannelsService;
  users: UsersService;
  permissions: PermissionsService;
  messages: MessagesService;
  /** A ban or unban by a moderator replaces a timed ban's pending lift: it lasts until lifted. */
  bans: Pick<BanCommands, 'banFromChannel' | 'unbanFromChannel' | 'banUser'>;
}

/**
 * Moderation from the client API: the channel actions of the admin API and the global ban, allowed to a
 * user whose roles grant the matching permission of the catalogue, and to nobody else (403 / 400301).
 */
export function createModeratorService(deps: ModeratorDeps) {
  const { channels, permissions, bans } = deps;

  /**
   * The permission, and a channel a moderator may act on. A bot's conversation with a user answers as a
   * missing channel does, whatever the caller's roles: its id follows from the two user ids, and a
   * moderator who could add themselves to it would read the bot's private messages.
   */
  async function requireChannelPermission(actor: ModeratorActor, permission: Permission, channelId: string): Promise<void> {
    await permissions.require(actor.userId, permission, channelId);
    const channel = await channels.find(channelId);
    if (channel !== undefined && !maySeeChannel(asMember(actor), channel)) throw notFound('Channel');
  }

  /** The people an action names: never a network admin (users.policy.ts). */
  async function requireMayActOn(actor: ModeratorActor, userIds: readonly string[]): Promise<void> {
    requireMayActOnUsers(asMember(actor), await Promise.all(userIds.map((userId) => deps.users.findById(userId))));
  }

  return {
    /** Deletes a message: its author may, and whoever holds DELETE_MESSAGE in its channel (else 403 / 400301). */
    async deleteMessage(actor: MessageActor, messageId: string, note: AuditNote | null) {
      const { row } = await deps.messages.get(messageId);
      requireMayDeleteMessage({ actor: asMember(actor), permissions: await permissions.permissionsOf(actor.userId, row.channel_id) }, row);
      return deps.messages.deleteMessage(actor, row.id, note);
    },

    async renameChannel(actor: ModeratorActor, channelId: string, displayName: string, guard: ModeratorTextGuard): Promise<ChannelRow> {
      await requireChannelPermission(actor, 'EDIT_CHANNEL', channelId);
      // Every member sees the name: it passes the rules their messages pass.
      await guard(actor, { texts: [{ field: 'displayName', text: displayName }] });
      return channels.setDisplayName(channelId, displayName);
    },

    async addUsers(actor: ModeratorActor, channelId: string, userIds: string[]): Promise<void> {
      await requireChannelPermission(actor, 'ADD_CHANNEL_USER', channelId);
      await requireMayActOn(actor, userIds);
      await channels.addUsers(channelId, userIds);
    },

    async removeUsers(actor: ModeratorActor, channelId: string, userIds: string[]): Promise<void> {
      await requireChannelPermission(actor, 'REMOVE_CHANNEL_USER', channelId);
      await requireMayActOn(actor, userIds);
      await channels.removeUsers(channelId, userIds);
    },

    async banFromChannel(actor: ModeratorActor, channelId: string, userIds: string[], note: AuditNote | null): Promise<void> {
      await requireChannelPermission(actor, 'BAN_USER_FROM_CHANNEL', channelId);
      await requireMayActOn(actor, userIds);
      await bans.banFromChannel(note, channelId, userIds);
    },

    async unbanFromChannel(actor: ModeratorActor, channelId: string, userIds: string[], note: AuditNote | null): Promise<void> {
      await requireChannelPermission(actor, 'BAN_USER_FROM_CHANNEL', channelId);
      await requireMayActOn(actor, userIds);
      await bans.unbanFromChannel(note, channelId, userIds);
    },

    async muteChannel(actor: ModeratorActor, channelId: string, mutePeriod: number): Promise<void> {
      await requireChannelPermission(actor, 'MUTE_CHANNEL', channelId);
      await channels.mute(channelId, mutePeriod);
    },

    async muteUsers(actor: ModeratorActor, channelId: string, userIds: string[], mutePeriod: number): Promise<void> {
      await requireChannelPermission(actor, 'MUTE_USER_INSIDE_CHANNEL', channelId);
      await requireMayActOn(actor, userIds);
      await channels.muteUsers(channelId, userIds, mutePeriod);
    },

    async closeChannel(actor: ModeratorActor, channelId: string): Promise<void> {
      await requireChannelPermission(actor, 'CLOSE_CHANNEL', channelId);
      await channels.close(channelId);
    },

    async banUser(actor: ModeratorActor, userId: string, note: AuditNote | null): Promise<void> {
      await permissions.require(actor.userId, 'BAN_USER', null);
      await requireMayActOn(actor, [userId]);
      await bans.banUser(note, userId);
    },
  };
}

export type ModeratorService = ReturnType<typeof createModeratorService>;
