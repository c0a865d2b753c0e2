/**
 * The deliberate differences between Parley's admin answers and the original's published files
 * (their shapes are carried in original-shapes.json), each named and explained. original-answers.test.ts applies exactly these:
 * a place they loosen is named by its address in those files, a route the original documents
 * without a JSON answer is held to the original schema named here, and a difference no answer needs
 * fails the test, so that this table (printed by the test, and the source of docs/compatibility.md)
 * stays true.
 */
export interface Difference {
  name: string;
  /** What the original's files say. */
  original: string;
  /** What Parley answers instead. */
  parley: string;
  why: string;
  /** Restricts the loosening to these routes (by default it applies wherever its places are reached). */
  onlyOn?: string[];
  /** Places in the original's files (addresses) where Parley answers null and the original types a value. */
  nullable?: string[];
  /** Properties the original documents that Parley does not send, by the address of the object schema listing them. */
  omitted?: Record<string, string[]>;
  /** Where the original documents no JSON answer (or no such route): the original schema Parley's answer is held to, by route. */
  heldTo?: Record<string, string>;
  /** Routes Parley serves at another path or with another method than a version of the original lists. */
  paths?: string[];
}

const json = (response: string): string => `${response}/content/application~1json/schema`;
const CHANNEL = '686a8b6/schema/channel.yaml#/ChannelV1';
const CHANNEL_USER = '686a8b6/schema/channel.yaml#/ChannelUserV1';
const MESSAGE = '686a8b6/schema/message.yaml#/Message';
const CHANNEL_PAGE = json('686a8b6/v2/channel/response.yaml#/ChannelPaginationApiResponse');
const USER_PAGE = json('686a8b6/v2/user/response.yaml#/UsersPaginationApiResponse');
/** GET /api/v2/message/{messageId} writes its channel, message and user out in place, in each version. */
const GET_MESSAGE = [
  json('686a8b6/v2/message/api.yaml#/get/responses/200000'),
  json('6e3323f/swagger.yaml#/paths/~1api~1v2~1message~1{messageId}/get/responses/200'),
];
const COMPONENTS = ['686a8b6/swagger.yaml#/components', '6e3323f/swagger.yaml#/components'];
const SAVE_ANSWER = '686a8b6/global/response.yaml#/SaveApiResponse';
/** The 2023 folder has its own schema/user.yaml and schema/role.yaml, which its v2 answers refer to. */
const inBoth = (file: string): string[] => [`686a8b6/${file}`, `6e3323f/${file}`];

const CHANNEL_FEATURES = [
  'isDistinct',
  'isRateLimited',
  'rateLimit',
  'rateLimitWindow',
  'rateLimitTimeout',
  'messageAutoDeleteEnabled',
  'autoDeleteMessageByFlagLimit',
  'avatar',
];
const ruleRoutes = (kind: string) => [
  `GET /api/v2/${kind}/records`,
  `POST /api/v2/${kind}/records`,
  `DELETE /api/v2/${kind}/records`,
  `PUT /api/v2/${kind}/records/:ruleId`,
];

const answerShapes: Difference[] = [
  {
    name: 'Actions answer {"status":"success"}',
    original: 'an empty 200 ("OK")',
    parley: '`{"status":"success"}`, the original\'s own SaveApiResponse shape',
    why: 'docs/contract.md fixes these answers (Records) and gives every success a JSON body (Easy to get wrong); a client of the original reads no body here, so it loses nothing.',
    heldTo: Object.fromEntries(
      [
        'POST /api/v2/channel/:channelId/users/ban',
        'POST /api/v2/channel/:channelId/users/unban',
        'POST /api/v2/channel/:channelId/close',
        'POST /api/v2/channels/:channelId/close',
        'POST /api/v2/users/ban',
        'POST /api/v2/users/unban',
      ].map((route) => [route, SAVE_ANSWER]),
    ),
  },
  {
    name: 'Adding and removing channel members',
    original: 'no such v2 route (neither version publishes one)',
    parley: '`{"status":"success"}`, the original\'s own SaveApiResponse shape',
    why: 'docs/contract.md lists both routes (Admin API) and fixes their answer as for the other actions (Records).',
    heldTo: { 'POST /api/v2/channel/:channelId/users': SAVE_ANSWER, 'DELETE /api/v2/channel/:channelId/users': SAVE_ANSWER },
  },
  {
    name: 'Deleting a message answers the deleted message',
    original: 'an empty 200 ("Success")',
    parley: 'the message answer of the creates, `{"status","data":{"messages":[the deleted message],"users"},"paging"}` (the original\'s MessageResponse)',
    why: 'Every success has a JSON body (docs/contract.md, Easy to get wrong); the deleted record is the useful one, and a client of the original reads no body here.',
    heldTo: { 'DELETE /api/v2/message/:messageId': '686a8b6/v2/message/response.yaml#/MessageResponse' },
  },
  {
    name: 'Adding and deleting word and URL rules answers the rules',
    original: 'an empty 200 ("OK")',
    parley:
      'the rules added or deleted, in the list answer `{"status":"success","data":{"results":[...]}}` (the original\'s BlacklistRulesResponse / WhitelistRulesResponse)',
    why: 'docs/contract.md, Records: the rule routes answer {status, data: {results}}, DELETE alike, so a script learns the ids it removed.',
    heldTo: {
      'POST /api/v2/blacklist/records': `${COMPONENTS[0]}/responses/BlacklistRulesResponse`,
      'DELETE /api/v2/blacklist/records': `${COMPONENTS[0]}/responses/BlacklistRulesResponse`,
      'POST /api/v2/whitelist/records': `${COMPONENTS[0]}/responses/WhitelistRulesResponse`,
      'DELETE /api/v2/whitelist/records': `${COMPONENTS[0]}/responses/WhitelistRulesResponse`,
    },
  },
  {
    name: 'Changing roles answers the roles',
    original: 'an empty 200 ("OK")',
    parley: "the roles created or changed, as GET /api/v2/roles lists them (the original's RolesResponse)",
    why: 'Every success has a JSON body (docs/contract.md, Easy to get wrong); a client of the original reads no body here.',
    heldTo: { 'PUT /api/v2/roles': `${COMPONENTS[0]}/responses/RolesResponse` },
  },
];

const routes: Difference[] = [
  {
    name: 'Closing a channel on the singular path too',
    original: 'only `POST /api/v2/channels/{channelId}/close` (plural)',
    parley: "the same answer on both the plural path and the contract's `POST /api/v2/channel/{channelId}/close`",
    why: 'The contract names the singular path (docs/contract.md, Admin API); every published version of the original names the plural one, so both are served.',
    paths: ['POST /api/v2/channel/:channelId/close'],
  },
  {
    name: 'Mutes take PUT',
    original: '2021 files: `POST /api/v2/channel/:channelId/mute` and `.../users/mute`; 2023 files: `PUT`',
    parley: 'PUT only; a POST is a 404',
    why: 'The contract lists PUT (docs/contract.md, Admin API), as the 2023 files do.',
    paths: ['PUT /api/v2/channel/:channelId/mute', 'PUT /api/v2/channel/:channelId/users/mute'],
  },
];

const nulls: Difference[] = [
  {
    name: 'Null page tokens at the ends',
    original: '`paging.next` and `paging.prev` typed as strings',
    parley: '`null` on the last page (next) and the first page (prev)',
    why: 'docs/contract.md, Records (`"paging":{"next":t|null,"prev":t|null}`): a client stops paging at null rather than at an absent or empty token.',
    nullable: [
      `${CHANNEL_PAGE}/properties/paging/properties/next`,
      `${CHANNEL_PAGE}/properties/paging/properties/prev`,
      `${USER_PAGE}/properties/paging/properties/next`,
      `${USER_PAGE}/properties/paging/properties/prev`,
    ],
  },
  {
    name: 'Null muteTimeout while not muted',
    original: '`muteTimeout` typed as a date-time string',
    parley: '`null` while the channel or the member is not muted',
    why: 'docs/contract.md, Records: muteTimeout is the end of the mute, or null.',
    nullable: [
      `${CHANNEL}/properties/muteTimeout`,
      `${CHANNEL_USER}/properties/muteTimeout`,
      ...GET_MESSAGE.map((answer) => `${answer}/properties/channel/properties/muteTimeout`),
    ],
  },
  {
    name: 'Null lastActivity of a member who has not sent yet',
    original: "a channel user's `lastActivity` typed as a date-time string",
    parley: '`null` until the member sends a message in the channel',
    why: 'There is no activity to date; a made-up time (the join) would read as a message.',
    nullable: [`${CHANNEL_USER}/properties/lastActivity`],
  },
  {
    name: 'Null parentId and editedAt of messages',
    original: '`parentId` and `editedAt` typed as strings',
    parley: '`parentId: null` for a top-level message, `editedAt: null` for one never edited',
    why: 'docs/contract.md, Records, lists both fields on every message; null says "none" without dropping the field.',
    nullable: [MESSAGE, ...GET_MESSAGE.map((answer) => `${answer}/properties/message`)].flatMap((message) => [
      `${message}/properties/parentId`,
      `${message}/properties/editedAt`,
    ]),
  },
  {
    name: 'Null channelUser where the admin is not a member',
    original: 'each result of the channel query carries a `channelUser` object',
    parley: '`null` for a channel the calling admin is not a member of',
    why: "docs/contract.md, Records: each result's channelUser is the calling admin's membership, null where there is none.",
    nullable: [`${CHANNEL_PAGE}/properties/results/items/properties/channelUser`],
  },
];

const omissions: Difference[] = [
  {
    name: 'No fields for channel features Parley lacks',
    original: `channels carry ${CHANNEL_FEATURES.map((name) => `\`${name}\``).join(', ')}`,
    parley: 'none of them',
    why: "The contract (docs/contract.md) has no distinct conversations, channel rate limits, auto-deletion by flags or channel avatars; placeholder values would announce features that do not exist. Every one is optional in the original's schemas.",
    omitted: Object.fromEntries([CHANNEL, ...GET_MESSAGE.map((answer) => `${answer}/properties/channel`)].map((channel) => [channel, CHANNEL_FEATURES])),
  },
  {
    name: 'No internal flag hash',
    original: 'messages and users carry `hashFlag` (`{bits, hashes, hash}`), described as "for checking internally"',
    parley: 'no `hashFlag`; `flagCount` carries the count',
    why: "It is the original's internal record of who flagged; Parley keeps flags in their own table and never exposes who flagged.",
    omitted: {
      [MESSAGE]: ['hashFlag'],
      ...Object.fromEntries(inBoth('schema/user.yaml#/User').map((user) => [user, ['hashFlag']])),
      '6e3323f/schema/user.yaml#/UserV3': ['hashFlag'],
      ...Object.fromEntries(GET_MESSAGE.map((answer) => [`${answer}/properties/message`, ['hashFlag']])),
      // The 2021 answer refers to User for its user; the 2023 one writes the user out in place.
      [`${GET_MESSAGE[1]}/properties/user`]: ['hashFlag'],
    },
  },
  {
    name: 'No per-reader or event-only message fields',
    original: 'messages carry `myReactions` (the caller\'s own reactions) and `latestReaction` ("exists when triggered from an event message.didUpdate")',
    parley: 'neither; `reactions` ({name: count}) and `reactionsCount` are sent',
    why: 'The admin API reads as no user, so it has no reactions of its own; latestReaction belongs to real-time events.',
    omitted: {
      [MESSAGE]: ['myReactions', 'latestReaction'],
      ...Object.fromEntries(GET_MESSAGE.map((answer) => [`${answer}/properties/message`, ['myReactions']])),
    },
  },
  {
    name: 'One public id per user and role',
    original:
      'users carry private ids (`_id`, `roleIds`, and in 2023 `path`, `userInternalId`, `userPublicId`, "for real-time event"); roles carry `_id` and `networkId`; the users list carries a `session` per user',
    parley: 'the public ids only: `userId` (and `publicId` in the users list), roles by `publicId`; no session',
    why: 'Parley has one id per user and names roles by their publicId (docs/contract.md, Records); a private id would be a second name for the same thing. Sessions are not part of a user record.',
    omitted: {
      ...Object.fromEntries(inBoth('schema/user.yaml#/AdminUser').map((user) => [user, ['_id', 'roleIds']])),
      ...Object.fromEntries(inBoth('schema/role.yaml#/Role').map((role) => [role, ['_id', 'networkId']])),
      [`${USER_PAGE}/properties/users/items`]: ['session'],
      '6e3323f/schema/user.yaml#/User': ['_id', 'path'],
      '6e3323f/schema/user.yaml#/UserV3': ['_id', 'path', 'userInternalId', 'userPublicId'],
      [`${GET_MESSAGE[1]}/properties/user`]: ['_id', 'path'],
    },
  },
  {
    name: 'No 2023 user profile fields',
    original: '2023 files: reactors as UserV3, with `permissions`, `description`, `avatarFileId`, `avatarCustomUrl`; users with `isDeleted`',
    parley: "Parley's user record (`avatar` holds the avatar's file id); no permissions, description or deletion flag",
    why: "The contract's user (docs/contract.md, Records) has none of these; a user's permissions come from their roles, which GET /api/v2/roles lists.",
    omitted: {
      '6e3323f/schema/user.yaml#/UserV3': ['permissions', 'description', 'avatarFileId', 'avatarCustomUrl'],
      '6e3323f/schema/user.yaml#/User': ['isDeleted'],
      [`${GET_MESSAGE[1]}/properties/user`]: ['isDeleted'],
    },
  },
  {
    name: 'No files or reaction updatedAt in the 2023 reactions answer',
    original: '2023 files: `data.files` beside reactions and users, and `updatedAt` on each reactor',
    parley: 'neither',
    why: 'Admin reactions reference messages only (docs/contract.md, Admin API), which carry their own fileId; a reaction is made or removed, never updated.',
    omitted: {
      [`${json('6e3323f/v2/reaction/response.yaml#/ReactionResponse')}/properties/data`]: ['files'],
      '6e3323f/schema/reaction.yaml#/Reactor': ['updatedAt'],
    },
  },
  {
    name: 'No moderation settings in the roles answer',
    original: 'GET /api/v2/roles answers `data.moderatonSettings` (sic) beside `data.roles`',
    parley: '`data.roles` and `data.permissions` (the permission catalogue)',
    why: 'Moderation settings are not roles, and the contract (docs/contract.md) has no moderation-settings API.',
    omitted: Object.fromEntries(COMPONENTS.map((components) => [`${json(`${components}/responses/RolesResponse`)}/properties/data`, ['moderatonSettings']])),
  },
  {
    name: 'No isDeleted on rules',
    original: 'rules carry `isDeleted`',
    parley: 'no `isDeleted`: a deleted rule is gone, so every rule listed is live',
    why: 'Parley deletes rules rather than marking them.',
    omitted: Object.fromEntries(COMPONENTS.map((components) => [`${components}/schemas/BlacklistRule`, ['isDeleted']])),
  },
  {
    name: 'No isMatchExactWord on URL rules',
    original: "the whitelist answers reuse the BlacklistRule schema, with `isMatchExactWord` (the files' own WhitelistRule has none)",
    parley: "WhitelistRule's fields: `ruleId, regex, isEnabled, createdAt, updatedAt`",
    why: 'docs/contract.md, Records: isMatchExactWord is for the blacklist only; a URL rule matches a host and path prefix.',
    onlyOn: ruleRoutes('whitelist'),
    omitted: Object.fromEntries(COMPONENTS.map((components) => [`${components}/schemas/BlacklistRule`, ['isMatchExactWord']])),
  },
];

export const DIFFERENCES: Difference[] = [...answerShapes, ...routes, ...nulls, ...omissions];

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table as Markdown, with the routes each difference reaches (found by the test from the files). */
export function differencesMarkdown(routesOf: (difference: Difference) => string[]): string {
  const rows = DIFFERENCES.map((difference) => {
    const where = routesOf(difference)
      .map((route) => `\`${route}\``)
      .join(', ');
    return `| ${cell(difference.name)} | ${cell(where)} | ${cell(difference.original)} | ${cell(difference.parley)} | ${cell(difference.why)} |`;
  });
  return ['| Difference | Routes | The original says | Parley answers | Why |', '|---|---|---|---|---|', ...rows].join('\n');
}
