import { Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { ChannelIdParams, Segment } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { ChannelRecord, ChannelUserRecord, presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import type { InboxService } from '../../modules/inbox/inbox.service.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import { exampleOf } from './client.schemas.js';

const tag = { tags: ['client'] };

const MyChannelsAnswer = Type.Object(
  {
    channels: Type.Array(
      Type.Object({
        channel: ChannelRecord,
        channelUser: ChannelUserRecord,
        unreadCount: Type.Integer({ description: "Messages after the caller's read marker" }),
      }),
      { description: 'Most recently active first' },
    ),
  },
  {
    description: "The caller's channels, each with the caller's membership and unread count",
    examples: [{ channels: [{ channel: exampleOf(ChannelRecord), channelUser: exampleOf(ChannelUserRecord), unreadCount: 5 }] }],
  },
);

const ReadBody = Type.Object(
  { segment: Segment },
  { description: 'The channelSegment read up to; a marker never moves back, nor past the last message', examples: [{ segment: 1280 }] },
);

const ReadAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    readToSegment: Type.Integer({ description: 'Where the marker stands after the call' }),
  },
  { description: 'The read marker in place', examples: [{ status: 'success', readToSegment: 1280 }] },
);

/** The caller's own profile and channels: what an end-user app shows first. */
export function registerClientBasicsRoutes(app: TypedApp, deps: { inbox: InboxService; clock: Clock }): void {
  const { inbox } = deps;

  app.get(
    '/me',
    {
      schema: {
        ...tag,
        summary: "The caller's profile",
        description: "The caller's own user record, identity fields included.",
        response: answers(UserRecord),
      },
    },
    async (request) => presentUser(await inbox.profileOf(principalOf(request))),
  );

  app.get(
    '/channels',
    {
      schema: {
        ...tag,
        summary: "The caller's channels with unread counts",
        description: 'The channels the caller is a member of, most recently active first, with how many messages are unread in each.',
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many channels (default 100)' })) }),
        response: answers(MyChannelsAnswer),
      },
    },
    async (request) => {
      const now = deps.clock.now();
      const rows = await inbox.channelsOf(principalOf(request), request.query.limit ?? 100);
      return {
        channels: rows.map(({ channel, member }) => ({
          channel: presentChannel(channel, now),
          channelUser: presentChannelUser(member, now),
          // Segments have no gaps, so what is unread is the distance from the marker to the end.
          unreadCount: Math.max(0, channel.last_segment - member.read_to_segment),
        })),
      };
    },
  );

  app.post(
    '/channels/:channelId/read',
    {
      schema: {
        ...tag,
        summary: "Move the caller's read marker forward",
        description:
          'Marks the channel read up to `segment` (capped at its last message). Members only: 404 for a missing channel, 403 (400304) when banned, 403 (400301) when not a member.',
        consumes: JSON_AND_FORM,
        params: ChannelIdParams,
        body: ReadBody,
        response: answers(ReadAnswer),
      },
    },
    async (request) => {
      const readTo = await inbox.markRead(principalOf(request), request.params.channelId, request.body.segment);
      return { status: 'success' as const, readToSegment: readTo };
    },
  );
}
