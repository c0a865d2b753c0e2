import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { ChannelRecord } from '../../modules/channels/channels.present.js';
import { presentChannel } from '../../modules/channels/channels.present.js';
import { MAX_MUTE_PERIOD_MS } from '../../modules/channels/channels.service.js';
import type { ModerationService } from '../../modules/moderation-rules/moderation.service.js';
import type { ModeratorService } from '../../modules/moderators/moderator.service.js';
import type { UsersService } from '../../modules/users/users.service.js';
import { ChannelIdParams, Id, IdList } from '../../shared/schemas.js';
import { exampleOf } from './client.schemas.js';
import { FlagBody } from './message-actions.routes.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['client moderation'] };
const UserIds = Type.Object({ userIds: IdList('Users to act on', 1) }, { examples: [{ userIds: ['bob'] }] });
const MutePeriod = Type.Integer({ minimum: 0, maximum: MAX_MUTE_PERIOD_MS, description: 'Milliseconds from now; 0 unmutes' });
const UserIdParams = Type.Object({ userId: Id('The user') });
const RenamedAnswer = Type.Object({ channel: ChannelRecord }, { description: 'The renamed channel', examples: [{ channel: exampleOf(ChannelRecord) }] });
const MutedAnswer = Type.Object({ success: Type.Literal(true) }, { description: 'Muted (or unmuted with 0)', examples: [{ success: true }] });
const FlaggedAnswer = Type.Object(
  { status: Type.Literal('success'), flagged: Type.Boolean({ description: 'false when the caller had flagged the user already' }) },
  { description: 'The flag is counted once per flagger', examples: [{ status: 'success', flagged: true }] },
);
const MEMBER_ACTION = 'Answers 403 / 400301 without the permission, and 404 for a missing channel or a bot conversation.';

const action = (summary: string, description: string) => ({ ...tag, summary, description: `${description} ${MEMBER_ACTION}`, params: ChannelIdParams });

const memberAction = (summary: string, description: string) => ({
  ...action(summary, description),
  consumes: JSON_AND_FORM,
  body: UserIds,
  response: answers(SuccessAnswer, { extraErrors: [409] }),
});

interface ClientModerationDeps {
  moderator: ModeratorService;
  /** The text rules; a channel's new name passes them. */
  moderation: ModerationService;
  users: UsersService;
  clock: Clock;
}

/**
 * Moderation from the client API: the same channel actions as the admin API, each allowed by the
 * moderator service to a user whose roles grant its permission; and flagging a user, open to anyone.
 */
export function registerClientModerationRoutes(app: TypedApp, deps: ClientModerationDeps): void {
  registerChannelEditRoutes(app, deps);
  registerChannelMuteAndCloseRoutes(app, deps);
  registerUserModerationRoutes(app, deps);
}

/** Renaming a channel and adding, removing, banning and unbanning its members. */
function registerChannelEditRoutes(app: TypedApp, deps: ClientModerationDeps): void {
  const { moderator } = deps;

  app.put(
    '/channels/:channelId',
    {
      config: { audit: 'channel.rename' },
      schema: {
        ...action('Rename a channel (EDIT_CHANNEL)', 'Sets the display name of a channel; 403 (400308, 400309) when the name breaks a moderation rule.'),
        consumes: JSON_AND_FORM,
        body: Type.Object({ displayName: Type.String({ maxLength: 200 }) }, { examples: [{ displayName: 'General' }] }),
        response: answers(RenamedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const channel = await moderator.renameChannel(principalOf(request), request.params.channelId, request.body.displayName, deps.moderation.guard);
      return { channel: presentChannel(channel, deps.clock.now()) };
    },
  );

  app.post(
    '/channels/:channelId/users',
    { config: { audit: 'channel.addUsers' }, schema: memberAction('Add members (ADD_CHANNEL_USER)', 'Adds users to the channel.') },
    async (request) => {
      await moderator.addUsers(principalOf(request), request.params.channelId, request.body.userIds);
      return { status: 'success' as const };
    },
  );

  app.delete(
    '/channels/:channelId/users',
    { config: { audit: 'channel.removeUsers' }, schema: memberAction('Remove members (REMOVE_CHANNEL_USER)', 'Removes users from the channel.') },
    async (request) => {
      await moderator.removeUsers(principalOf(request), request.params.channelId, request.body.userIds);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/channels/:channelId/users/ban',
    { config: { audit: 'channel.banUsers' }, schema: memberAction('Ban from a channel (BAN_USER_FROM_CHANNEL)', 'Bans users from the channel.') },
    async (request) => {
      await moderator.banFromChannel(principalOf(request), request.params.channelId, request.body.userIds, auditNoteOf(request));
      return { status: 'success' as const };
    },
  );

  app.post(
    '/channels/:channelId/users/unban',
    { config: { audit: 'channel.unbanUsers' }, schema: memberAction('Unban (BAN_USER_FROM_CHANNEL)', 'Lifts channel bans.') },
    async (request) => {
      await moderator.unbanFromChannel(principalOf(request), request.params.channelId, request.body.userIds, auditNoteOf(request));
      return { status: 'success' as const };
    },
  );
}

function registerChannelMuteAndCloseRoutes(app: TypedApp, deps: ClientModerationDeps): void {
  const { moderator } = deps;

  app.put(
    '/channels/:channelId/mute',
    {
      config: { audit: 'channel.mute' },
      schema: {
        ...action('Mute a channel (MUTE_CHANNEL)', 'While muted, only moderators post in the channel.'),
        consumes: JSON_AND_FORM,
        body: Type.Object({ mutePeriod: MutePeriod }, { examples: [{ mutePeriod: 60000 }] }),
        response: answers(MutedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await moderator.muteChannel(principalOf(request), request.params.channelId, request.body.mutePeriod);
      return { success: true as const };
    },
  );

  app.put(
    '/channels/:channelId/users/mute',
    {
      config: { audit: 'channel.muteUsers' },
      schema: {
        ...action('Mute members (MUTE_USER_INSIDE_CHANNEL)', 'Muted members read but cannot post until the period ends.'),
        consumes: JSON_AND_FORM,
        body: Type.Object({ mutePeriod: MutePeriod, userIds: IdList('Members', 1) }, { examples: [{ mutePeriod: 60000, userIds: ['bob'] }] }),
        response: answers(MutedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await moderator.muteUsers(principalOf(request), request.params.channelId, request.body.userIds, request.body.mutePeriod);
      return { success: true as const };
    },
  );

  app.post(
    '/channels/:channelId/close',
    {
      config: { audit: 'channel.close' },
      schema: {
        ...action('Close a channel (CLOSE_CHANNEL)', 'Closes the channel for good: its messages are deleted and its members removed.'),
        response: answers(SuccessAnswer),
      },
    },
    async (request) => {
      await moderator.closeChannel(principalOf(request), request.params.channelId);
      return { status: 'success' as const };
    },
  );
}

/** Banning a user globally (with permission) and flagging one (anyone). */
function registerUserModerationRoutes(app: TypedApp, deps: ClientModerationDeps): void {
  const { moderator } = deps;

  app.post(
    '/users/:userId/ban',
    {
      config: { audit: 'user.ban' },
      schema: {
        ...tag,
        summary: 'Ban a user globally (BAN_USER)',
        description: "Ends the user's streams and refuses their tokens everywhere until an admin unbans them. 403 / 400301 without the permission.",
        params: UserIdParams,
        response: answers(SuccessAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await moderator.banUser(principalOf(request), request.params.userId, auditNoteOf(request));
      return { status: 'success' as const };
    },
  );

  app.post(
    '/users/:userId/flag',
    {
      schema: {
        ...tag,
        summary: 'Flag a user (once per flagger)',
        description:
          "Reports a user to the operators, with an optional reason they read in the moderation queue; the body may be absent or empty. The user's flagCount counts distinct flaggers; flagging again changes nothing, its first reason included. 400 for oneself, 404 for an unknown user, 422 for a reason that is empty once trimmed or over 500 characters.",
        consumes: JSON_AND_FORM,
        params: UserIdParams,
        body: FlagBody,
        response: answers(FlaggedAnswer),
      },
    },
    async (request) => {
      const added = await deps.users.flag(principalOf(request).userId, request.params.userId, request.body.reason);
      return { status: 'success' as const, flagged: added };
    },
  );
}
