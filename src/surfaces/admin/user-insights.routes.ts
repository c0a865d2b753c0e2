import { channelScopeOf } from '../../modules/channels/channels.policy.js';
import { adminActorOf } from '../../http/admin-admission.js';
import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { iso } from '../../shared/values.js';
import { SCAN_BUDGET } from '../../modules/messages/messages.by-author.js';
import { MessageRecord, presentMessage } from '../../modules/messages/messages.present.js';
import type { MessagesService } from '../../modules/messages/messages.service.js';
import { TRAY_DISABLED_MESSAGE } from '../../modules/tray/tray.js';
import type { TrayInspector } from '../../modules/tray/tray.inspect.js';
import { presentHistory, TrayHistoryRecord, type TrayPresentOptions } from '../../modules/tray/tray.present.js';
import { presentReceivedFlag, presentUser, ReceivedFlagRecord, UserRecord } from '../../modules/users/users.present.js';
import type { UsersService } from '../../modules/users/users.service.js';
import { AppError, notFound } from '../../shared/errors.js';
import { IsoTime, Nullable } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';
import { UserIdParams } from './identity.schemas.js';
import { moderators, networkAdmins } from './console-access.js';

const tag = { tags: ['users'] };

const PageQuery = (defaultLimit: number, maximum: number) =>
  Type.Object({
    pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum, description: `Page size; default ${defaultLimit}` })),
  });

const ReceivedFlagsAnswer = Type.Object(
  {
    flags: Type.Array(ReceivedFlagRecord, { description: 'Newest first' }),
    paging: PagingRecord,
  },
  {
    description: 'A page of the flags a user received, newest first',
    examples: [{ flags: ReceivedFlagRecord.examples, paging: { next: null, prev: null } }],
  },
);

const ChannelName = Type.Object({ channelId: Type.String(), displayName: Type.String({ description: "'' when the channel has none" }) });

const AuthoredMessagesAnswer = Type.Object(
  {
    messages: Type.Array(MessageRecord, {
      description:
        'Newest first, in every channel; deleted ones included (isDeleted, data emptied). Fewer than limit, even none, while paging.next is not null',
    }),
    channels: Type.Array(ChannelName, { description: 'The channels of these messages, each once' }),
    scannedTo: Nullable(
      IsoTime('The time of the oldest message this page examined: the search reached back to it'),
      'null when the search reached the oldest message',
    ),
    paging: Type.Object({
      next: Nullable(Type.String(), 'Token that searches on below the last message examined; null once the search reached the oldest message'),
      prev: Type.Null({ description: 'Always null: the search goes towards older messages only' }),
    }),
  },
  {
    description: "A page of a user's messages across channels, newest first, and how far back the search went",
    examples: [
      {
        messages: MessageRecord.examples,
        channels: [{ channelId: 'general', displayName: 'General' }],
        scannedTo: '2025-03-12T16:40:02.114Z',
        paging: { next: 'eyJpIjoiNjdkMWNiMjI1ZjNhMWIyYzRkMDAwMDAxIn0.x3Jf', prev: null },
      },
    ],
  },
);

const historyExample = (TrayHistoryRecord.examples as Array<Record<string, unknown>>)[0] ?? {};

const InspectedTrayAnswer = Type.Object(
  {
    data: TrayHistoryRecord.properties.data,
    lastRead: TrayHistoryRecord.properties.lastRead,
    paging: Type.Object({
      next: Nullable(Type.String(), 'Token of the next page, of older records; null on the last page'),
      prev: Type.Null({ description: 'Always null: the tray pages towards older records only' }),
    }),
  },
  {
    description: "A page of a user's notification tray, the records as /notifications/history renders them for that user",
    examples: [{ data: historyExample.data, lastRead: historyExample.lastRead, paging: { next: 'eyJiIjoxNzQxODAyNjYzNjQwfQ.x3Jf', prev: null } }],
  },
);

/**
 * What an administrator looks at about one user: the record, the flags others raised on them, their
 * messages across channels and their notification tray. Reads only.
 */
export function registerUserInsightRoutes(
  app: TypedApp,
  deps: { users: UsersService; messages: MessagesService; tray: { inspect: TrayInspector; enabled: boolean; present: TrayPresentOptions } },
): void {
  const { users, messages, tray } = deps;

  app.get(
    '/users/:userId',
    {
      config: moderators(['EDIT_USER', 'BAN_USER'], 'listing users'),
      schema: {
        ...tag,
        summary: 'Get one user',
        description: 'Answers the user as the users list and PUT /api/v2/users do. An unknown user is a 404.',
        params: UserIdParams,
        response: answers(UserRecord),
      },
    },
    async (request) => {
      const user = await users.findById(request.params.userId);
      if (!user) throw notFound('User');
      return presentUser(user);
    },
  );

  app.get(
    '/users/:userId/flags',
    {
      config: moderators(['EDIT_USER'], "reading a user's flags and messages"),
      schema: {
        ...tag,
        summary: 'The flags a user received',
        description:
          "Lists the flags other users raised on the user and not yet cleared (by DELETE /api/v2/users/{userId}/flags or a review of the moderation queue), newest first: the flagger, their reason and when. An unknown user is a 404; a page token continues only its own user's list.",
        params: UserIdParams,
        querystring: PageQuery(20, 100),
        response: answers(ReceivedFlagsAnswer),
      },
    },
    async (request) => {
      const { items, paging } = await users.receivedFlags(request.params.userId, request.query);
      return { flags: items.map(presentReceivedFlag), paging };
    },
  );

  app.get(
    '/users/:userId/messages',
    {
      config: moderators(['EDIT_USER'], "reading a user's flags and messages"),
      schema: {
        ...tag,
        summary: "A user's messages across channels",
        description: `Lists the user's messages in every channel, newest first, deleted ones included, with the names of their channels. No index leads from an author to their messages (every message create would write into it), so each page walks the messages of all users from newest to oldest, over at most ${SCAN_BUDGET.toLocaleString('en')} messages below where the previous page stopped, and keeps the user's: the cost is bounded per page, not per user, and a user with few messages among many takes more pages. A page may hold fewer messages than limit, even none, while paging.next continues the walk; paging.next is null only once the walk reached the oldest message. scannedTo is the time of the oldest message the page examined ("searched back to"). An unknown user is a 404; a page token continues only its own user's list.`,
        params: UserIdParams,
        querystring: PageQuery(20, 100),
        response: answers(AuthoredMessagesAnswer),
      },
    },
    async (request) => {
      const { rows, channelNames, next, scannedTo } = await messages.byAuthor(request.params.userId, request.query, channelScopeOf(adminActorOf(request)));
      return {
        messages: rows.map(presentMessage),
        channels: [...channelNames].map(([channelId, displayName]) => ({ channelId, displayName })),
        scannedTo: iso(scannedTo),
        paging: { next, prev: null },
      };
    },
  );

  app.get(
    '/users/:userId/tray',
    {
      config: networkAdmins("a user's notification tray"),
      schema: {
        ...tag,
        summary: "A user's notification tray",
        description:
          "Answers the user's notification records exactly as GET /notifications/history renders them for that user (description, actors, target, read state) with their last-read time, newest first, a page at a time. Only reads: the user's read marks and last-read time do not change. An unknown user is a 404; 403 while the tray is not enabled on this server.",
        params: UserIdParams,
        querystring: PageQuery(10, 50),
        response: answers(InspectedTrayAnswer),
      },
    },
    async (request) => {
      if (!tray.enabled) throw new AppError('forbidden', TRAY_DISABLED_MESSAGE);
      const { userId } = request.params;
      const { page, paging } = await tray.inspect(userId, request.query);
      const { data, lastRead } = presentHistory(page, userId, tray.present);
      return { data, lastRead, paging };
    },
  );
}
