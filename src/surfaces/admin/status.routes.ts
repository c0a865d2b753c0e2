import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentStats, presentStatus, StatsRecord, StatusRecord } from '../../modules/stats/stats.present.js';
import type { StatsService } from '../../modules/stats/stats.service.js';
import { networkAdmins } from './console-access.js';

const tag = { tags: ['operations'] };

/** The network's totals and the answering instance's status, for operators (an admin token or a network admin). */
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
