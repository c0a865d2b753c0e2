import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { adminActorOf } from '../../http/admin-admission.js';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import {
  OpenMessageRecord,
  OpenUserRecord,
  presentOpenMessage,
  presentOpenUser,
  presentReview,
  presentSummary,
  ReviewRecord,
  SummaryRecord,
} from '../../modules/moderation-queue/queue.present.js';
import type { ModerationQueueService } from '../../modules/moderation-queue/queue.service.js';
import type { Reviewer, ReviewRow } from '../../modules/moderation-queue/queue.types.js';
import { AppError } from '../../shared/errors.js';
import type { Paging } from '../../shared/paging.js';
import { Id, StringEnum } from '../../shared/schemas.js';
import { PagingRecord } from '../shared/message-answers.js';
import { MODERATION, moderators } from './console-access.js';
import { auditNoteOf } from '../shared/audit-hooks.js';

const tag = { tags: ['admin moderation queue'] };
const PAGING_EXAMPLE = { next: 'eyJhIjoxNzQxOTQ1MjAyMTE0fQ.x3Jf', prev: null };
const MAX_MINUTES = 525_600;

const WHO =
  'Open to admin tokens and to console users holding any of DELETE_MESSAGE, BAN_USER, BAN_USER_FROM_CHANNEL or MUTE_USER_INSIDE_CHANNEL (403 / 400301 otherwise).';

const PageQuery = {
  pageToken: Type.Optional(Type.String({ maxLength: 2048, description: 'paging.next or paging.prev of an earlier answer; it continues its own list' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size; default 25' })),
};
const Status = Type.Optional(StringEnum(['open', 'reviewed'], 'open (default): waiting for review; reviewed: the reviews made'));

const ReviewsAnswer = Type.Object(
  { reviews: Type.Array(ReviewRecord, { description: 'Newest first' }), paging: PagingRecord },
  { description: 'A page of reviews, newest first', examples: [{ reviews: ReviewRecord.examples, paging: PAGING_EXAMPLE }] },
);
const OpenMessagesAnswer = Type.Object(
  { items: Type.Array(OpenMessageRecord, { description: 'Newest flag first' }), paging: PagingRecord },
  { description: 'A page of flagged messages waiting for review', examples: [{ items: OpenMessageRecord.examples, paging: PAGING_EXAMPLE }] },
);
const OpenUsersAnswer = Type.Object(
  { items: Type.Array(OpenUserRecord, { description: 'Newest flag first' }), paging: PagingRecord },
  { description: 'A page of flagged users waiting for review', examples: [{ items: OpenUserRecord.examples, paging: PAGING_EXAMPLE }] },
);
const queueOrReviews = (open: typeof OpenMessagesAnswer | typeof OpenUsersAnswer, what: string) =>
  Type.Union([open, ReviewsAnswer], {
    description: `status=open: { items, paging }, the ${what} waiting for review; status=reviewed: { reviews, paging }, their reviews`,
    examples: [...(open.examples as unknown[]), ...(ReviewsAnswer.examples as unknown[])],
  });

const ReviewAnswer = Type.Object({ review: ReviewRecord }, { description: 'The review recorded', examples: [{ review: ReviewRecord.examples[0] }] });
const SummaryAnswer = SummaryRecord;

const Note = Type.Optional(Type.String({ maxLength: 1000, description: "The reviewer's note, kept with the review (trimmed; blank is none)" }));
const Minutes = (what: string) => Type.Integer({ minimum: 1, maximum: MAX_MINUTES, description: `${what}, in minutes (at most a year); absent: indefinitely` });

const MessageReviewBody = Type.Object(
  {
    decision: StringEnum(['dismiss', 'delete'], 'dismiss: the message stays; delete: the message is deleted (DELETE_MESSAGE)'),
    author: Type.Optional(
      Type.Object(
        {
          action: StringEnum(
            ['mute', 'ban', 'globalBan'],
            "mute (MUTE_USER_INSIDE_CHANNEL) or ban (BAN_USER_FROM_CHANNEL) in the message's channel, or globalBan (BAN_USER)",
          ),
          minutes: Type.Optional(Minutes('How long the mute or ban lasts')),
        },
        { description: "What is done to the message's author besides the decision" },
      ),
    ),
    note: Note,
  },
  {
    examples: [{ decision: 'delete', author: { action: 'ban', minutes: 60 }, note: 'Second warning this week' }, { decision: 'dismiss' }],
  },
);

const UserReviewBody = Type.Object(
  {
    decision: StringEnum(['dismiss', 'globalBan'], 'dismiss: nothing else is done; globalBan: the user is banned from the whole network (BAN_USER)'),
    minutes: Type.Optional(Minutes('How long the global ban lasts (globalBan only)')),
    note: Note,
  },
  { examples: [{ decision: 'globalBan', minutes: 1440, note: 'Spam in several channels' }, { decision: 'dismiss' }] },
);

const reviewerOf = (request: FastifyRequest): Reviewer => ({ actor: adminActorOf(request), userId: principalOf(request).userId });

const reviewsAnswer = ({ items, paging }: { items: ReviewRow[]; paging: Paging }) => ({ reviews: items.map(presentReview), paging });

/** The moderation queue: what users flagged, waiting for review, the reviews, and the counts the console polls. */
export function registerModerationQueueRoutes(app: TypedApp, deps: { queue: ModerationQueueService; publicUrl: string }): void {
  registerQueueReads(app, deps);
  registerReviewRoutes(app, deps);
}

function registerQueueReads(app: TypedApp, deps: { queue: ModerationQueueService; publicUrl: string }): void {
  const { queue, publicUrl } = deps;

  app.get(
    '/moderation/messages',
    {
      config: moderators(MODERATION, 'moderation'),
      schema: {
        ...tag,
        summary: 'Flagged messages waiting for review, or their reviews',
        description: `status=open (the default) lists the messages, not deleted, that users flagged and no review cleared yet, newest flag first: each with its channel, its author, the number of flags and the newest 100 flags (who, their reason, when). channelId, reporter and reason narrow the open list, and its page tokens carry them. status=reviewed lists the reviews of messages, newest first, as GET /api/v2/moderation/reviews?targetType=message does. Paged by pageToken. ${WHO}`,
        querystring: Type.Object(
          {
            status: Status,
            channelId: Type.Optional(Id('status=open only: only the messages of this channel')),
            reporter: Type.Optional(Id('status=open only: only the messages this user flagged')),
            reason: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description: 'status=open only: only the messages with a flag whose reason holds this text (any case); with reporter, a flag of theirs',
              }),
            ),
            ...PageQuery,
          },
          {
            examples: [
              { status: 'open', limit: 25 },
              { status: 'open', channelId: 'general', reason: 'spam' },
            ],
          },
        ),
        response: answers(queueOrReviews(OpenMessagesAnswer, 'messages')),
      },
    },
    async (request) => {
      const { status, channelId, reporter, reason, ...page } = request.query;
      const actor = adminActorOf(request);
      if (status === 'reviewed') {
        if (channelId !== undefined || reporter !== undefined || reason !== undefined) {
          throw new AppError('badRequest', 'channelId, reporter and reason filter the open queue only (status=open).');
        }
        return reviewsAnswer(await queue.reviews(actor, 'message', page));
      }
      const { items, paging } = await queue.openMessages(actor, { ...page, channelId, reporter, reason });
      return { items: items.map((item) => presentOpenMessage(item, publicUrl)), paging };
    },
  );

  app.get(
    '/moderation/users',
    {
      config: moderators(MODERATION, 'moderation'),
      schema: {
        ...tag,
        summary: 'Flagged users waiting for review, or their reviews',
        description: `status=open (the default) lists the users that other users flagged and no review cleared yet, newest flag first: each with the number of flags and the newest 100 flags. status=reviewed lists the reviews of users, newest first. Paged by pageToken. ${WHO}`,
        querystring: Type.Object({ status: Status, ...PageQuery }, { examples: [{ status: 'open' }] }),
        response: answers(queueOrReviews(OpenUsersAnswer, 'users')),
      },
    },
    async (request) => {
      const { status, ...page } = request.query;
      const actor = adminActorOf(request);
      if (status === 'reviewed') return reviewsAnswer(await queue.reviews(actor, 'user', page));
      const { items, paging } = await queue.openUsers(actor, page);
      return { items: items.map(presentOpenUser), paging };
    },
  );

  app.get(
    '/moderation/reviews',
    {
      config: moderators(MODERATION, 'moderation'),
      schema: {
        ...tag,
        summary: 'The reviews made',
        description: `Every review of the queue, newest first, of messages, of users, or both when targetType is absent: the decision, the action on the author, the note, the reviewer, the flags it cleared and the message as it was. Paged by pageToken. ${WHO}`,
        querystring: Type.Object(
          { targetType: Type.Optional(StringEnum(['message', 'user'], 'Only reviews of messages or of users; both when absent')), ...PageQuery },
          { examples: [{ targetType: 'message', limit: 50 }] },
        ),
        response: answers(ReviewsAnswer),
      },
    },
    async (request) => {
      const { targetType, ...page } = request.query;
      return reviewsAnswer(await queue.reviews(adminActorOf(request), targetType ?? null, page));
    },
  );

  app.get(
    '/moderation/summary',
    {
      config: moderators(MODERATION, 'moderation'),
      schema: {
        ...tag,
        summary: 'How many flagged messages and users wait',
        description: `Counts of the open queue and the time of the newest open flag, cheap enough to poll every few seconds: a console updates its badge when latestFlagAt moves. ${WHO}`,
        response: answers(SummaryAnswer),
      },
    },
    async (request) => presentSummary(await queue.summary(adminActorOf(request))),
  );
}

function registerReviewRoutes(app: TypedApp, deps: { queue: ModerationQueueService }): void {
  const { queue } = deps;

  app.post(
    '/moderation/messages/:messageId/review',
    {
      config: { ...moderators(MODERATION, 'moderation'), audit: 'moderation.reviewMessage' },
      schema: {
        ...tag,
        summary: 'Review a flagged message',
        description:
          "Dismisses the message's flags or deletes the message (as DELETE /api/v2/message/{messageId} does: members see it deleted), optionally mutes or bans its author in the message's channel or bans them globally, for `minutes` or indefinitely (a timed ban is lifted within a minute of its end). " +
          'The flags are cleared and the review recorded with a copy of them and of the message. The actions run first; the flags stay open until the review is recorded, so a review that failed midway may simply be sent again. ' +
          `Each action needs its permission (delete DELETE_MESSAGE, mute MUTE_USER_INSIDE_CHANNEL, ban BAN_USER_FROM_CHANNEL, globalBan BAN_USER), else 403 / 400301. An unknown message is 404; a message without open flags (never flagged, or reviewed already) is 409 / 400900; a mute of an author who is not a member of the channel is 404.`,
        consumes: JSON_AND_FORM,
        params: Type.Object({ messageId: Id('The flagged message') }),
        body: MessageReviewBody,
        response: answers(ReviewAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => ({
      review: presentReview(await queue.reviewMessage(reviewerOf(request), request.params.messageId, request.body, auditNoteOf(request))),
    }),
  );

  app.post(
    '/moderation/users/:userId/review',
    {
      config: { ...moderators(MODERATION, 'moderation'), audit: 'moderation.reviewUser' },
      schema: {
        ...tag,
        summary: 'Review a flagged user',
        description:
          "Clears the user's flags (as DELETE /api/v2/users/{userId}/flags does) and records the review with a copy of them; globalBan also bans the user from the whole network (as POST /api/v2/users/ban does), for `minutes` or indefinitely. " +
          'globalBan needs BAN_USER (403 / 400301 otherwise); minutes with dismiss is 422. An unknown user is 404; a user without open flags is 409 / 400900.',
        consumes: JSON_AND_FORM,
        params: Type.Object({ userId: Id('The flagged user') }),
        body: UserReviewBody,
        response: answers(ReviewAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => ({ review: presentReview(await queue.reviewUser(reviewerOf(request), request.params.userId, request.body, auditNoteOf(request))) }),
  );
}
