import { Type } from '@sinclair/typebox';
import { bearerTokenOf, type EndUserAuthenticator, principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { enforceRateLimit, type RateLimiter } from '../../shared/rate-limit.js';
import { Id, IsoTime, StringEnum } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { CreatedMessage } from '../../modules/messages/messages.service.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../http/multipart.js';
import type { BotService } from '../../modules/bot/bot.service.js';

const tag = { tags: ['bot'] };
const MULTIPART = ['multipart/form-data'];
const readUpload = readMultipartBody({ fileField: 'file', arrayFields: [] });

const Uid = Id('The user to write to: the bot talks to them in its one-to-one conversation');
const Gid = Id('A group channel the bot is a member of');
/** `tid` may be empty (the group's main topic), so it is an id that allows ''. */
const Tid = Type.Optional(Type.String({ maxLength: 50, pattern: '^[^\\s/?#%\\\\]*$', description: 'A topic of the group; empty or absent: the main topic' }));
const TextMessage = Type.Object({
  type: Type.Optional(StringEnum(['text'], 'Always text')),
  data: Type.String({ minLength: 1, description: 'The text, 1 to 20,000 characters' }),
});
const Caption = Type.Optional(Type.String({ maxLength: MAX_TEXT_LENGTH }));
/** The uploaded part of a multipart body; not part of the validated fields, so optional to the schema. */
const FilePart = (description: string) => Type.Optional(Type.String({ contentMediaType: 'application/octet-stream', description }));
const Picture = FilePart('Required: the picture (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF)');
const AnyFile = FilePart('Required: the file, with its name and content type');

const GROUP = 'general';
const USER = 'alice';

/**
 * The answer of every bot endpoint: the `status` of docs/contract.md, Envelopes, and the message as the
 * later original described it (`id`, `type`, `groupId` = the channel, `threadId` = the topic, ''
 * for the main topic), plus its channelSegment and createdAt.
 */
const SentAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    message: Type.Object({
      id: Type.String({ description: 'The message id' }),
      type: Type.String({ description: "'text', 'image' or 'file'" }),
      groupId: Type.String({ description: "The channel: the group, or the bot's conversation with the user" }),
      threadId: Type.String({ description: "The topic; '' for the main topic" }),
      channelSegment: Type.Integer({ description: "The message's sequence number inside its channel" }),
      createdAt: IsoTime('When the message was sent'),
    }),
  },
  {
    description: 'The message sent',
    examples: [
      {
        status: 'success',
        message: { id: '67d3f5a5e4b0a1c2d3e4f501', type: 'text', groupId: GROUP, threadId: '', channelSegment: 1281, createdAt: '2025-03-14T09:30:00.000Z' },
      },
    ],
  },
);

function sent({ record }: CreatedMessage) {
  return {
    status: 'success' as const,
    message: {
      id: record.messageId,
      type: record.type,
      groupId: record.channelId,
      threadId: record.topicId ?? '',
      channelSegment: record.channelSegment,
      createdAt: record.createdAt,
    },
  };
}

const TO_USER =
  "The bot's conversation with the user is created on the first message. 404 for an unknown user; 403 when the text breaks a rule (400307-400309); 409 when the conversation is closed; 429 past the bot's rate limit.";
const TO_GROUP =
  "The bot must be a member of the group: 403 when it is not (400301), is banned (400304), muted (400302), the channel is muted (400303) or the text breaks a rule; 404 for an unknown group; 409 when it is closed; 429 past the bot's rate limit.";

export interface BotRateLimit {
  limiter: RateLimiter;
  limit: number;
  windowMs: number;
}

interface BotRouteDeps {
  bots: BotService;
  authenticate: EndUserAuthenticator;
  rate: BotRateLimit;
}

/** docs/contract.md, Bot API: six endpoints, a bot token each time, a per-bot rate limit. Registered under /bot/v1. */
export function registerBotRoutes(app: TypedApp, deps: BotRouteDeps): void {
  const { rate } = deps;

  // Before any body is read: who is calling (a bot token, its bot not globally banned), then
  // whether the bot has budget left. Every request counts, refused ones included, so a bot that
  // loops on a bad request is slowed down as well.
  app.addHook('onRequest', async (request) => {
    request.principal = await deps.authenticate(bearerTokenOf(request));
    await enforceRateLimit(rate.limiter, `bot:${request.principal.userId}`, rate.limit, rate.windowMs);
  });

  registerBotTextRoutes(app, deps);
  registerBotPictureRoutes(app, deps);
  registerBotFileRoutes(app, deps);
}

function registerBotTextRoutes(app: TypedApp, deps: BotRouteDeps): void {
  const { bots } = deps;

  app.post(
    '/direct/message',
    {
      schema: {
        ...tag,
        summary: 'Send a text to a user',
        description: `Sends a text message to one user. ${TO_USER}`,
        consumes: JSON_AND_FORM,
        body: Type.Object({ uid: Uid, message: TextMessage }, { examples: [{ uid: USER, message: { type: 'text', data: 'Your standup is in 5 minutes.' } }] }),
        response: answers(SentAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => sent(await bots.sendText(principalOf(request), { uid: request.body.uid }, request.body.message.data)),
  );

  app.post(
    '/group/message',
    {
      schema: {
        ...tag,
        summary: 'Send a text to a group (and topic)',
        description: `Sends a text message to a group channel, in its main topic or in \`tid\`. ${TO_GROUP}`,
        consumes: JSON_AND_FORM,
        body: Type.Object(
          { gid: Gid, tid: Tid, message: TextMessage },
          { examples: [{ gid: GROUP, tid: '', message: { type: 'text', data: 'Standup starts now.' } }] },
        ),
        response: answers(SentAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      const { gid, tid, message } = request.body;
      return sent(await bots.sendText(principalOf(request), { gid, tid }, message.data));
    },
  );
}

function registerBotPictureRoutes(app: TypedApp, deps: BotRouteDeps): void {
  const { bots } = deps;

  app.post(
    '/direct/picture',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Send a picture to a user (multipart: uid, caption, file)',
        description: `Uploads a picture and sends it to one user as an image message. ${TO_USER} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        body: Type.Object({ uid: Uid, caption: Caption, file: Picture }, { examples: [{ uid: USER, caption: 'Burndown for this sprint' }] }),
        response: answers(SentAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request) => sent(await bots.sendPicture(principalOf(request), { uid: request.body.uid }, uploadOf(request), request.body.caption)),
  );

  app.post(
    '/group/picture',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Send a picture to a group (multipart: gid, tid, caption, file)',
        description: `Uploads a picture and sends it to a group channel as an image message. ${TO_GROUP} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        body: Type.Object(
          { gid: Gid, tid: Tid, caption: Caption, file: Picture },
          { examples: [{ gid: GROUP, tid: '', caption: 'Burndown for this sprint' }] },
        ),
        response: answers(SentAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request) => {
      const { gid, tid, caption } = request.body;
      return sent(await bots.sendPicture(principalOf(request), { gid, tid }, uploadOf(request), caption));
    },
  );
}

function registerBotFileRoutes(app: TypedApp, deps: BotRouteDeps): void {
  const { bots } = deps;

  app.post(
    '/direct/file',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Send a file to a user (multipart: uid, file)',
        description: `Uploads a file and sends it to one user as a file message. ${TO_USER} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        body: Type.Object({ uid: Uid, file: AnyFile }, { examples: [{ uid: USER }] }),
        response: answers(SentAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request) => sent(await bots.sendFile(principalOf(request), { uid: request.body.uid }, uploadOf(request))),
  );

  app.post(
    '/group/file',
    {
      preValidation: readUpload,
      schema: {
        ...tag,
        summary: 'Send a file to a group (multipart: gid, tid, file)',
        description: `Uploads a file and sends it to a group channel as a file message. ${TO_GROUP} 413 for a file over the upload limit.`,
        consumes: MULTIPART,
        body: Type.Object({ gid: Gid, tid: Tid, file: AnyFile }, { examples: [{ gid: GROUP, tid: '' }] }),
        response: answers(SentAnswer, { extraErrors: [409, 413] }),
      },
    },
    async (request) => {
      const { gid, tid } = request.body;
      return sent(await bots.sendFile(principalOf(request), { gid, tid }, uploadOf(request)));
    },
  );
}
