import { type TSchema, Type } from '@sinclair/typebox';
import type { Clock } from '../../clock.js';
import { principalOf } from '../../http/auth.js';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { ChannelRecord, ChannelUserRecord, presentChannel, presentChannelUser } from '../../modules/channels/channels.present.js';
import type { ChannelsService } from '../../modules/channels/channels.service.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import { ChannelIdParams, Nullable } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';
import { CHANNEL_READ, moderators } from './console-access.js';

/** GET /channel/:channelId and GET /channel/:channelId/users: one channel, and its people, for the console. */

const firstExample = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];
const tag = { tags: ['channels'] };

const ChannelAnswer = Type.Object(
  {
    channel: ChannelRecord,
    channelUser: Nullable(ChannelUserRecord, "The calling admin's row in the channel; null where they have none"),
  },
  {
    description: "The channel and the calling admin's membership of it, as one result of POST /channels",
    examples: [{ channel: firstExample(ChannelRecord), channelUser: firstExample(ChannelUserRecord) }],
  },
);

const MembersQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 25' })),
    pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
  },
  { examples: [{ limit: 25 }] },
);

const MembersAnswer = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        channelUser: ChannelUserRecord,
        user: Nullable(UserRecord, 'The account; null for a row whose user no longer exists'),
      }),
      { description: 'By user id' },
    ),
    paging: PagingRecord,
  },
  {
    description: "A page of the channel's members and banned users, each with their account",
    examples: [
      { results: [{ channelUser: firstExample(ChannelUserRecord), user: firstExample(UserRecord) }], paging: { next: 'eyJpIjoiYm9iIn0.x3Jf', prev: null } },
    ],
  },
);

export function registerChannelReadRoutes(app: TypedApp, deps: { channels: ChannelsService; clock: Clock }): void {
  const { channels, clock } = deps;

  app.get(
    '/channel/:channelId',
    {
      config: moderators(CHANNEL_READ, 'reading channels and their members', 'channel'),
      schema: {
        ...tag,
        summary: 'Read a channel',
        description: "Answers one channel, open or closed, with the calling admin's membership, as POST /channels lists it. An unknown channel is a 404.",
        params: ChannelIdParams,
        response: answers(ChannelAnswer),
      },
    },
    async (request) => {
      const now = clock.now();
      const { channel, member } = await channels.get(principalOf(request), request.params.channelId);
      return { channel: presentChannel(channel, now), channelUser: member ? presentChannelUser(member, now) : null };
    },
  );

  app.get(
    '/channel/:channelId/users',
    {
      config: moderators(CHANNEL_READ, 'reading channels and their members', 'channel'),
      schema: {
        ...tag,
        summary: "List a channel's members",
        description:
          'Lists the members of the channel and the users banned from it (`isBanned`), with their mute state and accounts, by user id, a page at a time. ' +
          'A page token continues the list of its own channel; an altered one is a 400. An unknown channel is a 404.',
        params: ChannelIdParams,
        querystring: MembersQuery,
        response: answers(MembersAnswer),
      },
    },
    async (request) => {
      const now = clock.now();
      const { rows, paging } = await channels.members(request.params.channelId, request.query);
      return {
        results: rows.map(({ member, user }) => ({ channelUser: presentChannelUser(member, now), user: user ? presentUser(user) : null })),
        paging,
      };
    },
  );
}
