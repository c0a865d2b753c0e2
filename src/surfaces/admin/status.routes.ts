import { Type } from '@sinclair/typebox';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { MAX_DAYS } from '../../modules/stats/daily-stats.js';
import { DailyStatsRecord, presentDailyStats, presentStats, presentStatus, StatsRecord, StatusRecord } from '../../modules/stats/stats.present.js';
import type { StatsService } from '../../modules/stats/stats.service.js';
import { ANY_CONSOLE_USER, moderators, networkAdmins } from './console-access.js';

const tag = { tags: ['operations'] };

/**
 * The network's totals and the answering instance's status, for operators (an admin token or a network
 * admin); its figures per day, for every console user too.
 */
export function registerStatusRoutes(app: TypedApp, deps: { stats: StatsService }): void {
  const { stats } = deps;

  app.get(
    '/stats',
    {
      config: networkAdmins("the network's totals and status"),
      schema: {
        ...tag,
        summary: "The network's totals",
        description:
          "Counts the users and channels and sums the channels' message counts (messages not deleted). Cheap enough to poll: no message is counted one by one.",
        response: answers(StatsRecord),
      },
    },
    async () => presentStats(await stats.totals()),
  );

  app.get(
    '/stats/daily',
    {
      config: moderators(ANY_CONSOLE_USER, 'the daily statistics'),
      schema: {
        ...tag,
        summary: 'Messages, active users, sign-ins and flags per day',
        description:
          'Answers the last `days` UTC days, today included, oldest first: messages created, people who sent a message, sign-ins (authorization codes exchanged for tokens) and flags raised on messages and users. ' +
          'Read from counters kept per day as things happen, so the cost does not depend on the number of messages. ' +
          'Messages and active users follow the outbox a moment behind the writes; a message deleted later stays counted on the day it was created. ' +
          'For network admins and every console user (aggregates only, no names).',
        querystring: Type.Object(
          {
            days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DAYS, description: `How many days, today included; default 30, at most ${MAX_DAYS}` })),
          },
          { examples: [{ days: 30 }] },
        ),
        response: answers(DailyStatsRecord),
      },
    },
    async (request) => presentDailyStats(await stats.daily(request.query.days ?? 30)),
  );

  app.get(
    '/status',
    {
      config: networkAdmins("the network's totals and status"),
      schema: {
        ...tag,
        summary: 'The status of the answering instance',
        description:
          "The server's version, when its process started, its outbox lag and its open sockets: what /metrics exposes to Prometheus, as JSON behind the admin API's credentials. Behind a load balancer, each call may reach another instance.",
        response: answers(StatusRecord),
      },
    },
    async () => presentStatus(await stats.status()),
  );
}
