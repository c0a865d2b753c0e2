import { Type } from '@sinclair/typebox';
import { bearerTokenOf, type EndUserAuthenticator, principalOf } from '../../http/auth.js';
import { enforceRateLimit, type RateLimiter } from '../../http/rate-limit.js';
import { Id, StringEnum } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { CreatedMessage } from '../../modules/messages/messages.service.js';
import { MAX_TEXT_LENGTH } from '../../modules/messages/messages.service.js';
import { readMultipartBody, uploadOf } from '../../modules/messages/multipart.js';
import type { BotService } from '../../modules/bot/bot.service.js';

const tag = { tags: ['bot'] };
const consumes = ['multipart/form-data'];
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

/**
 * The answer of every bot endpoint: API-CONVENTIONS.md section 1's `status`, and the message as the
 * later original described it (`id`, `type`, `groupId` = the channel, `threadId` = the topic, ''
 * for the main topic), plus its channelSegment and createdAt.
 */
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

export interface BotRateLimit {
  limiter: RateLimiter;
  limit: number;
  windowMs: number;
}

/** SPEC.md section A: six endpoints, a bot token each time, a per-bot rate limit. Registered under /bot/v1. */
export function registerBotRoutes(app: TypedApp, deps: { bots: BotService; authenticate: EndUserAuthenticator; rate: BotRateLimit }): void {
  const { bots, rate } = deps;

  // Before any body is read: who is calling (a bot token, its bot not globally banned), then
  // whether the bot has budget left. Every request counts, refused ones included, so a bot that
  // loops on a bad request is slowed down as well.
  app.addHook('onRequest', async (request) => {
    request.principal = await deps.authenticate(bearerTokenOf(request));
    await enforceRateLimit(rate.limiter, `bot:${request.principal.userId}`, rate.limit, rate.windowMs);
  });

  app.post(
    '/direct/message',
    { schema: { ...tag, summary: 'Send a text to a user', body: Type.Object({ uid: Uid, message: TextMessage }) } },
    async (request) => sent(await bots.sendText(principalOf(request), { uid: request.body.uid }, request.body.message.data)),
  );

  app.post(
    '/group/message',
    { schema: { ...tag, summary: 'Send a text to a group (and topic)', body: Type.Object({ gid: Gid, tid: Tid, message: TextMessage }) } },
    async (request) => {
      const { gid, tid, message } = request.body;
      return sent(await bots.sendText(principalOf(request), { gid, tid }, message.data));
    },
  );

  app.post(
    '/direct/picture',
    {
      preValidation: readUpload,
      schema: { ...tag, summary: 'Send a picture to a user (multipart: uid, caption, file)', consumes, body: Type.Object({ uid: Uid, caption: Caption }) },
    },
    async (request) => sent(await bots.sendPicture(principalOf(request), { uid: request.body.uid }, uploadOf(request), request.body.caption)),
  );

  app.post(
    '/group/picture',
    {
      preValidation: readUpload,
      schema: { ...tag, summary: 'Send a picture to a group (multipart: gid, tid, caption, file)', consumes, body: Type.Object({ gid: Gid, tid: Tid, caption: Caption }) },
    },
    async (request) => {
      const { gid, tid, caption } = request.body;
      return sent(await bots.sendPicture(principalOf(request), { gid, tid }, uploadOf(request), caption));
    },
  );

  app.post(
    '/direct/file',
    { preValidation: readUpload, schema: { ...tag, summary: 'Send a file to a user (multipart: uid, file)', consumes, body: Type.Object({ uid: Uid }) } },
    async (request) => sent(await bots.sendFile(principalOf(request), { uid: request.body.uid }, uploadOf(request))),
  );

  app.post(
    '/group/file',
    {
      preValidation: readUpload,
      schema: { ...tag, summary: 'Send a file to a group (multipart: gid, tid, file)', consumes, body: Type.Object({ gid: Gid, tid: Tid }) },
    },
    async (request) => {
      const { gid, tid } = request.body;
      return sent(await bots.sendFile(principalOf(request), { gid, tid }, uploadOf(request)));
    },
  );
}
