import { type Static, Type } from '@sinclair/typebox';
import { IsoTime } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
import type { DailyFigures } from './daily-stats.js';
import { isoDateOf } from './daily-tallies.js';
import type { InstanceStatus } from './stats.service.js';
import type { TotalsRow } from './stats.store.js';

export const StatsRecord = Type.Object(
  {
    users: Type.Integer({ description: 'Every user of the users list: people, bots and the admin users of admin tokens' }),
    channels: Type.Integer({ description: 'Every channel, closed ones included' }),
    messages: Type.Integer({ description: "Messages not deleted, in every channel (the sum of the channels' messageCount)" }),
  },
  { description: "The network's totals", examples: [{ users: 1280, channels: 64, messages: 1_048_576 }] },
);
export type StatsRecord = Static<typeof StatsRecord>;

export function presentStats(row: TotalsRow): StatsRecord {
  return { users: row.users, channels: row.channels, messages: row.messages };
}

export const StatusRecord = Type.Object(
  {
    version: Type.String({ description: "The server's version (its package.json)" }),
    startedAt: IsoTime('When the answering process started'),
    outboxLag: Type.Integer({ description: 'Committed events this instance has not yet handed to its streams (parley_outbox_lag_events)' }),
    sockets: Type.Integer({ description: 'Real-time sockets open on this instance (parley_websocket_connections)' }),
  },
  {
    description: 'The answering instance: what /metrics exposes to Prometheus, as JSON. Behind a load balancer, each call may reach another instance.',
    examples: [{ version: '0.1.0', startedAt: '2025-03-01T06:00:00.000Z', outboxLag: 0, sockets: 412 }],
  },
);
export type StatusRecord = Static<typeof StatusRecord>;

export function presentStatus(status: InstanceStatus): StatusRecord {
  return { version: status.version, startedAt: iso(status.startedAt), outboxLag: status.outboxLag, sockets: status.sockets };
}

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const DailyStatsDay = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The UTC day, as an ISO date' }),
    messages: Count('Messages created that day, in every channel; a message deleted later stays counted'),
    activeUsers: Count('People (not bots) who sent at least one message that day, each once'),
    signIns: Count('Sign-ins: authorization codes exchanged for tokens that day (the console included)'),
    flags: Count('Flags raised that day, on messages and on users (messageFlags + userFlags)'),
    messageFlags: Count('Flags raised on messages'),
    userFlags: Count('Flags raised on users'),
  },
  { description: "One UTC day's figures" },
);
export type DailyStatsDay = Static<typeof DailyStatsDay>;

export const DailyStatsRecord = Type.Object(
  {
    from: Type.String({ format: 'date', description: 'The first day answered (UTC)' }),
    to: Type.String({ format: 'date', description: 'The last day answered: today (UTC), so far' }),
    days: Type.Array(DailyStatsDay, { description: 'Every day from `from` to `to`, oldest first; a day with nothing has zeros' }),
  },
  {
    description: 'Messages, active users, sign-ins and flags per UTC day',
    examples: [
      {
        from: '2025-03-13',
        to: '2025-03-14',
        days: [
          { date: '2025-03-13', messages: 1840, activeUsers: 212, signIns: 57, flags: 3, messageFlags: 2, userFlags: 1 },
          { date: '2025-03-14', messages: 655, activeUsers: 98, signIns: 31, flags: 0, messageFlags: 0, userFlags: 0 },
        ],
      },
    ],
  },
);
export type DailyStatsRecord = Static<typeof DailyStatsRecord>;

export function presentDailyStats(figures: DailyFigures[]): DailyStatsRecord {
  const days = figures.map(
    (day): DailyStatsDay => ({
      date: isoDateOf(day.utcDay),
      messages: day.messages,
      activeUsers: day.activeUsers,
      signIns: day.signIns,
      flags: day.messageFlags + day.userFlags,
      messageFlags: day.messageFlags,
      userFlags: day.userFlags,
    }),
  );
  return { from: days[0]?.date ?? '', to: days.at(-1)?.date ?? '', days };
}
