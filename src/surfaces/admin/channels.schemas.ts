import { type TSchema, Type } from '@sinclair/typebox';
import { ChannelRecord, ChannelUserRecord } from '../../modules/channels/channels.present.js';
import { MAX_MUTE_PERIOD_MS } from '../../modules/channels/channels.service.js';
import { Id, IdList, Metadata, Nullable, StringEnum, Tags } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';

/** Request and answer schemas of the admin channel routes (docs/contract.md, Records). */

const firstExample = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];
const channelExample = firstExample(ChannelRecord) as Record<string, unknown>;
const channelUserExample = firstExample(ChannelUserRecord);

export const MutePeriod = Type.Integer({ minimum: 0, maximum: MAX_MUTE_PERIOD_MS, description: 'Milliseconds from now; 0 unmutes' });

export const UserIdsBody = Type.Object({ userIds: IdList('Users to act on', 1) }, { examples: [{ userIds: ['alice', 'bob'] }] });

export const ChannelQueryBody = Type.Object(
  {
    filter: Type.Optional(StringEnum(['all', 'member', 'notMember'], "The calling admin's membership of the channels; default all")),
    userId: Type.Optional(Id('Only channels this user is a member of; each result then carries their membership')),
    tags: Type.Optional(Tags('Channels with any of these tags')),
    excludeTags: Type.Optional(Tags('Channels with none of these tags')),
    options: Type.Optional(
      Type.Object({
        skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000, description: 'Channels to leave out before the page' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 10' })),
        token: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
      }),
    ),
  },
  { examples: [{ filter: 'all', tags: ['company'], options: { limit: 20 } }] },
);

const Joinable = Type.Boolean({ description: 'Whether users may join the channel by themselves (client API); default false' });

export const CreateChannelBody = Type.Object(
  {
    channelId: Id('Unique channel id'),
    type: StringEnum(['standard']),
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Type.Optional(Metadata("The operator's own data about the channel (at most 100 KB as JSON)")),
    tags: Type.Optional(Tags()),
    userIds: Type.Optional(IdList('Initial members besides the calling admin')),
    joinable: Type.Optional(Joinable),
  },
  {
    examples: [
      {
        channelId: 'general',
        type: 'standard',
        displayName: 'General',
        metadata: { topic: 'Company-wide announcements' },
        tags: ['company'],
        userIds: ['alice', 'bob'],
        joinable: true,
      },
    ],
  },
);

export const UpdateChannelBody = Type.Object(
  {
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
    joinable: Type.Optional(Joinable),
  },
  { minProperties: 1, examples: [{ joinable: true }, { displayName: 'General', joinable: false }] },
);

export const DisplayNameBody = Type.Object(
  { channelId: Id('The channel to rename'), displayName: Type.String({ maxLength: 200 }) },
  { examples: [{ channelId: 'general', displayName: 'General' }] },
);

export const DisplayNameOfPathBody = Type.Object({ displayName: Type.String({ maxLength: 200 }) }, { examples: [{ displayName: 'General' }] });

export const MuteBody = Type.Object({ mutePeriod: MutePeriod }, { examples: [{ mutePeriod: 3_600_000 }, { mutePeriod: 0 }] });

export const MuteUsersBody = Type.Object(
  { mutePeriod: MutePeriod, userIds: IdList('Members to mute or unmute', 1) },
  { examples: [{ mutePeriod: 600_000, userIds: ['bob'] }] },
);

/** A channel with one user's membership of it. */
const ChannelAndMember = Type.Object({
  channel: ChannelRecord,
  channelUser: Nullable(ChannelUserRecord, 'The membership of the listed user (or of the calling admin); null where they have none'),
});

export const ChannelQueryAnswer = Type.Object(
  { results: Type.Array(ChannelAndMember, { description: 'Newest channel first' }), paging: PagingRecord },
  {
    description: 'A page of channels, each with a membership',
    examples: [{ results: [{ channel: channelExample, channelUser: channelUserExample }], paging: { next: 'eyJjIjoxNzM2MTUwNDAwMDAwfQ.x3Jf', prev: null } }],
  },
);

export const CreatedChannelAnswer = Type.Object(
  {
    channel: ChannelRecord,
    channelUser: Nullable(ChannelUserRecord, "The calling admin's membership: the admin who creates a channel joins it"),
  },
  {
    description: "The new channel and the calling admin's membership of it",
    examples: [{ channel: { ...channelExample, memberCount: 3, messageCount: 0 }, channelUser: channelUserExample }],
  },
);

export const MuteAnswer = Type.Object({ success: Type.Boolean() }, { description: 'Done', examples: [{ success: true }] });
