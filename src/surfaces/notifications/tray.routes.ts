import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { principalOf } from '../../http/auth.js';
import { enforceRateLimit, type RateLimiter } from '../../http/rate-limit.js';
import { StringEnum } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { TRAY_VERBS } from '../../modules/tray/tray.describe.js';
import { presentHistory, type TrayPresentOptions } from '../../modules/tray/tray.present.js';
import type { TrayService } from '../../modules/tray/tray.service.js';

const tag = { tags: ['notification tray'] };

/** SPEC.md Limits: 5 requests per second per user on the history. */
export const HISTORY_RATE = { limit: 5, windowMs: 1000 };

/** The original's clients read the bare JSON string "success". */
function sendSuccess(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(JSON.stringify('success'));
}

/** GET /history, POST /read, POST /last-read under the /notifications prefix (SPEC.md section D). */
export function registerTrayRoutes(app: TypedApp, deps: { tray: TrayService; limiter: RateLimiter; present: TrayPresentOptions }): void {
  const { tray, limiter, present } = deps;

  app.get(
    '/history',
    {
      schema: {
        ...tag,
        summary: "The caller's notification records, newest lastUpdate first, 10 per page",
        querystring: Type.Object({
          searchAfter: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Records with lastUpdate strictly below this (the previous lastRecordDate)' })),
        }),
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
        body: Type.Object({
          verb: StringEnum(TRAY_VERBS, 'post, comment or like'),
          targetId: Type.String({ minLength: 1, maxLength: 50 }),
          targetGroup: Type.String({ minLength: 1, maxLength: 20 }),
        }),
      },
    },
    async (request, reply) => {
      await tray.markRead(principalOf(request).userId, request.body);
      return sendSuccess(reply);
    },
  );

  app.post('/last-read', { schema: { ...tag, summary: "Set the caller's last-read time to now" } }, async (request, reply) => {
    await tray.markLastRead(principalOf(request).userId);
    return sendSuccess(reply);
  });
}
