import { type Static, Type } from '@sinclair/typebox';
import { IsoTime } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
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
