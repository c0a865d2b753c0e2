import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import { enforceRateLimit, type RateLimiter } from '../../shared/rate-limit.js';
import { StringEnum } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { TRAY_VERBS } from '../../modules/tray/tray.describe.js';
import { presentHistory, TrayHistoryRecord, type TrayPresentOptions } from '../../modules/tray/tray.present.js';
import type { TrayService } from '../../modules/tray/tray.service.js';

const tag = { tags: ['notification tray'] };

/** docs/contract.md, Limits: 5 requests per second per user on the history. */
export const HISTORY_RATE = { limit: 5, windowMs: 1000 };

/** The bare JSON string "success", which the original's clients read. */
const SuccessString = Type.Literal('success', { description: 'The JSON string "success"', examples: ['success'] });

/** The original's clients read the bare JSON string "success". */
function sendSuccess(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify('success'));
}

/** GET /history, POST /read, POST /last-read under the /notifications prefix (docs/contract.md, Notification tray). */
export function registerTrayRoutes(app: TypedApp, deps: { tray: TrayService; limiter: RateLimiter; present: TrayPresentOptions }): void {
  const { tray, limiter, present } = deps;

  app.get(
    '/history',
    {
      schema: {
        ...tag,
        summary: "The caller's notification records, newest lastUpdate first, 10 per page",
        description:
          "One page of the caller's tray; pass the page's lastRecordDate as searchAfter for the next one. At most 5 requests per second per user (429 beyond); 403 while the tray is not enabled on this server.",
        querystring: Type.Object(
          {
            searchAfter: Type.Optional(
              Type.Integer({
                minimum: 0,
                maximum: Number.MAX_SAFE_INTEGER,
                description: 'Records with lastUpdate strictly below this (the previous lastRecordDate)',
              }),
            ),
          },
          { examples: [{ searchAfter: 1741802663640 }] },
        ),
        response: answers(TrayHistoryRecord),
      },
      preHandler: async (request) => {
        await enforceRateLimit(limiter, `tray-history:${principalOf(request).userId}`, HISTORY_RATE.limit, HISTORY_RATE.windowMs);
      },
    },
    async (request) => {
      const userId = principalOf(request).userId;
      return presentHistory(await tray.history(userId, request.query.searchAfter), userId, present);
    },
  );

  app.post(
    '/read',
    {
      schema: {
        ...tag,
        summary: 'Mark one record read',
        description: "Marks the caller's record named by verb, targetId and targetGroup read; 404 when the caller has no such record.",
        consumes: JSON_AND_FORM,
        body: Type.Object(
          {
            verb: StringEnum(TRAY_VERBS, 'post, comment or like'),
            targetId: Type.String({ minLength: 1, maxLength: 50, description: "The record's targetId" }),
            targetGroup: Type.String({ minLength: 1, maxLength: 20, description: "The record's targetGroup" }),
          },
          { examples: [{ verb: 'like', targetId: '67d3f5a5e4b0a1c2d3e4f550', targetGroup: '1741802651402' }] },
        ),
        response: answers(SuccessString),
      },
    },
    async (request, reply) => {
      await tray.markRead(principalOf(request).userId, request.body);
      return sendSuccess(reply);
    },
  );

  const lastReadSchema = {
    ...tag,
    summary: "Set the caller's last-read time to now",
    description: "Marks the whole tray read: the history's lastRead.lastReadDate becomes the server's time. No body.",
    response: answers(SuccessString),
  };
  app.post('/last-read', { schema: lastReadSchema }, async (request, reply) => {
    await tray.markLastRead(principalOf(request).userId);
    return sendSuccess(reply);
  });
}
