import { adminActorOf } from '../../http/admin-admission.js';
import { channelScopeOf } from '../../modules/channels/channels.policy.js';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import { ChannelIdParams } from '../../shared/schemas.js';
import type { Clock } from '../../clock.js';
import { ChannelRecord, presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import type { ChannelsService } from '../../modules/channels/channels.service.js';
import type { BanCommands } from '../../modules/bans/bans.commands.js';
import { BanMinutes } from '../../modules/bans/ban-lifts.types.js';
import { registerChannelReadRoutes } from './channel-reads.routes.js';
import {
  ChannelQueryAnswer,
  ChannelQueryBody,
  CreateChannelBody,
  CreatedChannelAnswer,
  DisplayNameBody,
  DisplayNameOfPathBody,
  MuteAnswer,
  MuteBody,
  MuteUsersBody,
  UpdateChannelBody,
  UserIdsBody,
} from './channels.schemas.js';
import { CHANNEL_READ, moderators } from './console-access.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['channels'] };

/** Timed channel bans: a ban sets or cancels its lift, an unban cancels it. */
type HandBans = Pick<BanCommands, 'banFromChannel' | 'unbanFromChannel'>;
const BanUsersBody = Type.Object(
  {
    userIds: UserIdsBody.properties.userIds,
    minutes: Type.Optional(BanMinutes('How long the ban lasts, in minutes (1 to 525600, a year); absent: until an unban')),
  },
  { examples: [{ userIds: ['alice', 'bob'] }, { userIds: ['alice'], minutes: 60 }] },
);
const closedIsConflict = { extraErrors: [409 as const] };

export function registerChannelRoutes(app: TypedApp, deps: { channels: ChannelsService; clock: Clock; bans: HandBans }): void {
  const { channels, clock } = deps;

  app.post(
    '/channels',
    {
      config: { ...moderators(CHANNEL_READ, 'reading channels'), audit: false },
      schema: {
        ...tag,
        summary: 'Query channels',
        description:
          "Lists channels newest first, filtered by tags and by membership (the calling admin's, or `userId`'s), a page at a time. " +
          'An altered page token is a 400.',
        consumes: JSON_AND_FORM,
        body: Type.Optional(ChannelQueryBody),
        response: answers(ChannelQueryAnswer),
      },
    },
    async (request) => {
      const now = clock.now();
      const result = await channels.query(principalOf(request), request.body ?? {}, channelScopeOf(adminActorOf(request)));
      return {
        results: result.rows.map((row) => {
          const member = result.members.get(row.id);
          return { channel: presentChannel(row, now), channelUser: member ? presentChannelUser(member, now) : null };
        }),
        paging: result.paging,
      };
    },
  );

  app.post(
    '/channel',
    {
      config: { ...moderators(['EDIT_CHANNEL'], 'creating or renaming a channel', 'channel', 'users'), audit: 'channel.create' },
      schema: {
        ...tag,
        summary: 'Create a channel',
        description:
          'Creates a channel with the calling admin and `userIds` as members; `joinable` lets users join it by themselves. A taken channelId is a 409; an unknown user a 404.',
        consumes: JSON_AND_FORM,
        body: CreateChannelBody,
        response: answers(CreatedChannelAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const now = clock.now();
      const { channel, member } = await channels.create(principalOf(request), request.body);
      return { channel: presentChannel(channel, now), channelUser: member ? presentChannelUser(member, now) : null };
    },
  );

  const rename = async (channelId: string, displayName: string) => presentChannel(await channels.setDisplayName(channelId, displayName), clock.now());

  app.post(
    '/channel/displayName',
    {
      config: { ...moderators(['EDIT_CHANNEL'], 'creating or renaming a channel', 'channel'), audit: 'channel.rename' },
      schema: {
        ...tag,
        summary: "Change a channel's display name",
        description: 'Renames the channel named in the body and answers the channel. An unknown channel is a 404, a closed one a 409.',
        consumes: JSON_AND_FORM,
        body: DisplayNameBody,
        response: answers(ChannelRecord, closedIsConflict),
      },
    },
    async (request) => rename(request.body.channelId, request.body.displayName),
  );

  app.post(
    '/channel/:channelId/displayName',
    {
      config: { ...moderators(['EDIT_CHANNEL'], 'creating or renaming a channel', 'channel'), audit: 'channel.rename' },
      schema: {
        ...tag,
        summary: "Change a channel's display name (channel in the path)",
        description: 'As POST /channel/displayName, with the channel in the path. An unknown channel is a 404, a closed one a 409.',
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: DisplayNameOfPathBody,
        response: answers(ChannelRecord, closedIsConflict),
      },
    },
    async (request) => rename(request.params.channelId, request.body.displayName),
  );

  app.put(
    '/channel/:channelId',
    {
      config: { ...moderators(['EDIT_CHANNEL'], 'changing a channel', 'channel'), audit: 'channel.update' },
      schema: {
        ...tag,
        summary: "Change a channel's settings",
        description:
          'Sets the settings given (`displayName`, `joinable`: whether users may join by themselves) and answers the channel; members learn of it as channel.updated. ' +
          'An unknown channel is a 404, a closed one a 409, a body with neither setting a 422.',
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: UpdateChannelBody,
        response: answers(ChannelRecord, closedIsConflict),
      },
    },
    async (request) => presentChannel(await channels.update(request.params.channelId, request.body), clock.now()),
  );

  registerChannelReadRoutes(app, { channels, clock });
  registerMembershipRoutes(app, channels, deps.bans);
  registerMuteRoutes(app, channels);
  registerCloseRoutes(app, channels);
}

function registerMembershipRoutes(app: TypedApp, channels: ChannelsService, bans: HandBans): void {
  const membershipRoute = (summary: string, description: string, extraErrors: Array<409>) => ({
    schema: {
      ...tag,
      summary,
      description,
      consumes: JSON_AND_FORM,
      params: ChannelIdParams,
      body: UserIdsBody,
      response: answers(SuccessAnswer, { extraErrors }),
    },
  });

  app.post(
    '/channel/:channelId/users',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'ADD_CHANNEL_USER'], 'adding channel members', 'channel', 'users'), audit: 'channel.addUsers' },
      ...membershipRoute('Add members', 'Adds users to the channel (members already are left as they are). A user banned from the channel is a 403.', [409]),
    },
    async (request) => {
      await channels.addUsers(request.params.channelId, request.body.userIds);
      return { status: 'success' as const };
    },
  );

  app.delete(
    '/channel/:channelId/users',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'REMOVE_CHANNEL_USER'], 'removing channel members', 'channel', 'users'), audit: 'channel.removeUsers' },
      ...membershipRoute('Remove members', 'Removes members from the channel. A user who is not a member is a 404.', [409]),
    },
    async (request) => {
      await channels.removeUsers(request.params.channelId, request.body.userIds);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/channel/:channelId/users/ban',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'BAN_USER_FROM_CHANNEL'], 'banning from a channel', 'channel', 'users'), audit: 'channel.banUsers' },
      schema: {
        ...membershipRoute(
          'Ban users from a channel',
          'Bans users from the channel: they leave it and may not rejoin until unbanned. ' +
            'With `minutes` the ban is lifted that many minutes from now (within a minute of its end); without, it lasts until an unban. ' +
            'Either way this ban replaces the end of an earlier timed one in this channel, whoever set it (a review of the moderation queue included). ' +
            'A closed channel is a 409; minutes outside 1 to 525600 a 422.',
          [409],
        ).schema,
        body: BanUsersBody,
      },
    },
    async (request) => {
      const { userIds, minutes } = request.body;
      await bans.banFromChannel(auditNoteOf(request), request.params.channelId, userIds, minutes);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/channel/:channelId/users/unban',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'BAN_USER_FROM_CHANNEL'], 'banning from a channel', 'channel', 'users'), audit: 'channel.unbanUsers' },
      ...membershipRoute(
        'Unban users',
        'Lifts channel bans, timed ones included (their scheduled lifts are then cancelled). A user who is not banned from the channel is a 409 (400316).',
        [409],
      ),
    },
    async (request) => {
      await bans.unbanFromChannel(auditNoteOf(request), request.params.channelId, request.body.userIds);
      return { status: 'success' as const };
    },
  );
}

function registerMuteRoutes(app: TypedApp, channels: ChannelsService): void {
  app.put(
    '/channel/:channelId/mute',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'MUTE_CHANNEL'], 'muting a channel', 'channel'), audit: 'channel.mute' },
      schema: {
        ...tag,
        summary: 'Mute or unmute a channel',
        description: 'Mutes the whole channel for mutePeriod milliseconds (0 unmutes); while muted it takes no messages. A closed channel is a 409.',
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: MuteBody,
        response: answers(MuteAnswer, closedIsConflict),
      },
    },
    async (request) => {
      await channels.mute(request.params.channelId, request.body.mutePeriod);
      return { success: true };
    },
  );

  app.put(
    '/channel/:channelId/users/mute',
    {
      config: { ...moderators(['EDIT_CHANNEL', 'MUTE_USER_INSIDE_CHANNEL'], 'muting channel members', 'channel', 'users'), audit: 'channel.muteUsers' },
      schema: {
        ...tag,
        summary: 'Mute or unmute members',
        description: 'Mutes members of the channel for mutePeriod milliseconds (0 unmutes); a muted member may not send there. A closed channel is a 409.',
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: MuteUsersBody,
        response: answers(MuteAnswer, closedIsConflict),
      },
    },
    async (request) => {
      await channels.muteUsers(request.params.channelId, request.body.userIds, request.body.mutePeriod);
      return { success: true };
    },
  );
}

/** The contract names the singular path (docs/contract.md, Admin API); every published version of the original names the plural one. */
function registerCloseRoutes(app: TypedApp, channels: ChannelsService): void {
  const close = async (request: FastifyRequest<{ Params: { channelId: string } }>) => {
    await channels.close(request.params.channelId);
    return { status: 'success' as const };
  };
  for (const url of ['/channel/:channelId/close', '/channels/:channelId/close']) {
    app.post(
      url,
      {
        config: { ...moderators(['EDIT_CHANNEL', 'CLOSE_CHANNEL'], 'closing a channel', 'channel'), audit: 'channel.close' },
        schema: {
          ...tag,
          summary: 'Close a channel (irreversible)',
          description: 'Closes the channel for good: every member leaves it and its messages are deleted. A channel closed already is a 409.',
          params: ChannelIdParams,
          response: answers(SuccessAnswer, closedIsConflict),
        },
      },
      close,
    );
  }
}
