import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { ChannelRecord, ChannelUserRecord, presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import type { ChannelsService } from '../../modules/channels/channels.service.js';
import { ChannelIdParams } from '../../shared/schemas.js';
import { exampleOf } from './client.schemas.js';

const tag = { tags: ['client'] };

const JoinedAnswer = Type.Object(
  { channel: ChannelRecord, channelUser: ChannelUserRecord },
  {
    description: "The channel and the caller's membership of it",
    examples: [{ channel: { ...(exampleOf(ChannelRecord) as object), joinable: true }, channelUser: exampleOf(ChannelUserRecord) }],
  },
);

const LeftAnswer = Type.Object(
  { status: Type.Literal('success'), channel: ChannelRecord },
  { description: 'The caller is no longer a member; the channel as it is after', examples: [{ status: 'success', channel: exampleOf(ChannelRecord) }] },
);

/** Users joining channels open to joining, and leaving channels, by themselves (channels.policy.ts). */
export function registerClientChannelRoutes(app: TypedApp, deps: { channels: ChannelsService; clock: Clock }): void {
  const { channels, clock } = deps;

  app.post(
    '/channels/:channelId/join',
    {
      schema: {
        ...tag,
        summary: 'Join a channel open to joining',
        description:
          'Makes the caller a member of a channel whose `joinable` is on; its members (the caller included) get member.added. A member joining again changes nothing. ' +
          '404 for a missing channel or a bot conversation, 409 for a closed channel, 403 (400304) when banned from it, 403 (400301) when it is not open to joining.',
        params: ChannelIdParams,
        response: answers(JoinedAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { channel, member } = await channels.join(principalOf(request).userId, request.params.channelId);
      const now = clock.now();
      return { channel: presentChannel(channel, now), channelUser: presentChannelUser(member, now) };
    },
  );

  app.post(
    '/channels/:channelId/leave',
    {
      schema: {
        ...tag,
        summary: 'Leave a channel',
        description:
          "Ends the caller's membership of a channel, open to joining or not; the caller and the remaining members get member.removed. 404 when the caller is not a member, or for a missing channel or a bot conversation.",
        params: ChannelIdParams,
        response: answers(LeftAnswer),
      },
    },
    async (request) => {
      const channel = await channels.leave(principalOf(request).userId, request.params.channelId);
      return { status: 'success' as const, channel: presentChannel(channel, clock.now()) };
    },
  );
}
