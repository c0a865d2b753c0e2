import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { principalOf } from '../../http/auth.js';
import { ChannelIdParams, Id, IdList, Metadata, StringEnum, Tags } from '../../http/schemas.js';
import type { Clock } from '../../clock.js';
import { presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import { type ChannelsService, MAX_MUTE_PERIOD_MS } from '../../modules/channels/channels.service.js';

const MutePeriod = Type.Integer({ minimum: 0, maximum: MAX_MUTE_PERIOD_MS, description: 'Milliseconds from now; 0 unmutes' });
const UserIdsBody = Type.Object({ userIds: IdList('Users to act on', 1) });
const tag = { tags: ['channels'] };

export function registerChannelRoutes(app: TypedApp, deps: { channels: ChannelsService; clock: Clock }): void {
  const { channels, clock } = deps;

  app.post(
    '/channels',
    {
      schema: {
        ...tag,
        summary: 'Query channels',
        body: Type.Optional(
          Type.Object({
            filter: Type.Optional(StringEnum(['all', 'member', 'notMember'], "The admin's membership")),
            userId: Type.Optional(Id('Only channels this user is a member of')),
            tags: Type.Optional(Tags('Channels with any of these tags')),
            excludeTags: Type.Optional(Tags('Channels with none of these tags')),
            options: Type.Optional(
              Type.Object({
                skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
                limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
                token: Type.Optional(Type.String({ maxLength: 2048 })),
              }),
            ),
          }),
        ),
      },
    },
    async (request) => {
      const now = clock.now();
      const result = await channels.query(principalOf(request), request.body ?? {});
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
      schema: {
        ...tag,
        summary: 'Create a channel',
        body: Type.Object({
          channelId: Id('Unique channel id'),
          type: StringEnum(['standard']),
          displayName: Type.Optional(Type.String({ maxLength: 200 })),
          metadata: Type.Optional(Metadata()),
          tags: Type.Optional(Tags()),
          userIds: Type.Optional(IdList('Initial members')),
        }),
      },
    },
    async (request) => {
      const now = clock.now();
      const { channel, member } = await channels.create(principalOf(request), request.body);
      return { channel: presentChannel(channel, now), channelUser: member ? presentChannelUser(member, now) : null };
    },
  );

  app.post(
    '/channel/displayName',
    {
      schema: {
        ...tag,
        summary: "Change a channel's display name",
        body: Type.Object({ channelId: Id(), displayName: Type.String({ maxLength: 200 }) }),
      },
    },
    async (request) => {
      const channel = await channels.setDisplayName(request.body.channelId, request.body.displayName);
      return { channel: presentChannel(channel, clock.now()) };
    },
  );

  app.post('/channel/:channelId/users', { schema: { ...tag, summary: 'Add members', params: ChannelIdParams, body: UserIdsBody } }, async (request) => {
    await channels.addUsers(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.delete('/channel/:channelId/users', { schema: { ...tag, summary: 'Remove members', params: ChannelIdParams, body: UserIdsBody } }, async (request) => {
    await channels.removeUsers(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.put(
    '/channel/:channelId/mute',
    { schema: { ...tag, summary: 'Mute or unmute a channel', params: ChannelIdParams, body: Type.Object({ mutePeriod: MutePeriod }) } },
    async (request) => {
      await channels.mute(request.params.channelId, request.body.mutePeriod);
      return { success: true };
    },
  );

  app.put(
    '/channel/:channelId/users/mute',
    {
      schema: {
        ...tag,
        summary: 'Mute or unmute members',
        params: ChannelIdParams,
        body: Type.Object({ mutePeriod: MutePeriod, userIds: IdList('Members to mute or unmute', 1) }),
      },
    },
    async (request) => {
      await channels.muteUsers(request.params.channelId, request.body.userIds, request.body.mutePeriod);
      return { success: true };
    },
  );

  app.post('/channel/:channelId/users/ban', { schema: { ...tag, summary: 'Ban users from a channel', params: ChannelIdParams, body: UserIdsBody } }, async (request) => {
    await channels.ban(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.post('/channel/:channelId/users/unban', { schema: { ...tag, summary: 'Unban users', params: ChannelIdParams, body: UserIdsBody } }, async (request) => {
    await channels.unban(request.params.channelId, request.body.userIds);
    return { status: 'success' as const };
  });

  app.post('/channel/:channelId/close', { schema: { ...tag, summary: 'Close a channel (irreversible)', params: ChannelIdParams } }, async (request) => {
    await channels.close(request.params.channelId);
    return { status: 'success' as const };
  });
}
