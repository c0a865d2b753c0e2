import { type Static, Type } from '@sinclair/typebox';
import { IsoTime, Nullable, StringEnum } from '../../shared/schemas.js';
import { iso, parseJson } from '../../shared/values.js';
import type { AuditRow } from './audit.types.js';

const ACTOR_TYPES = ['admin', 'user', 'cli'] as const;

export const AuditEntryRecord = Type.Object(
  {
    id: Type.String({ description: 'The entry id' }),
    at: IsoTime('When the action was answered'),
    actor: Type.Object(
      {
        type: StringEnum(ACTOR_TYPES, 'admin: an admin token; user: a user acting as moderator from the client API; cli: the parley command'),
        name: Type.String({ description: "The admin token's name, the user's id, or cli" }),
        userId: Nullable(Type.String(), 'The user the actor acts as (admin-<name> for an admin token); null for the CLI'),
      },
      { description: 'Who acted' },
    ),
    operation: Type.String({ description: "A stable name such as channel.close, or 'METHOD /route' for a route without one" }),
    method: Type.String({ description: 'The HTTP method; CLI for the parley command' }),
    route: Type.String({ description: "The route pattern, or the parley command ('admin-token create')" }),
    targets: Type.Array(Type.Object({ field: Type.String({ description: 'The request field that named it' }), id: Type.String({ description: 'The id' }) }), {
      description: 'The ids the request named (channel, message, user, rule, client...): ids only, never other values',
    }),
    status: Type.Integer({ description: 'The HTTP status answered' }),
    success: Type.Boolean({ description: 'Whether the action succeeded (a 2xx)' }),
    errorCode: Nullable(Type.Integer(), 'The error code answered (400301, 500000, ...); null on success'),
    requestId: Nullable(Type.String(), 'The X-Request-Id of the request, as in the logs'),
  },
  {
    description: 'One administrative action',
    examples: [
      {
        id: '67d4a1f2c3b2a1e0f9a80012',
        at: '2025-03-14T09:26:53.589Z',
        actor: { type: 'admin', name: 'ops-script', userId: 'admin-ops-script' },
        operation: 'channel.banUsers',
        method: 'POST',
        route: '/api/v2/channel/:channelId/users/ban',
        targets: [
          { field: 'channelId', id: 'general' },
          { field: 'userIds', id: 'bob' },
        ],
        status: 200,
        success: true,
        errorCode: null,
        requestId: 'c0a8f3e2-9b1d-4e5f-a6b7-00000000002a',
      },
    ],
  },
);

export type AuditEntry = Static<typeof AuditEntryRecord>;

function isPair(value: unknown): value is [string, string] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string';
}

function pairsOf(text: string): Array<[string, string]> {
  const value = parseJson<unknown>(text, []);
  return Array.isArray(value) ? value.filter(isPair) : [];
}

export function presentAuditEntry(row: AuditRow): AuditEntry {
  const actorType = ACTOR_TYPES.find((type) => type === row.actor_type) ?? 'admin';
  return {
    id: row.id,
    at: iso(row.at),
    actor: { type: actorType, name: row.actor, userId: row.actor_user_id },
    operation: row.operation,
    method: row.method,
    route: row.route,
    targets: pairsOf(row.targets).map(([field, id]) => ({ field, id })),
    status: row.status,
    success: row.status >= 200 && row.status < 300,
    errorCode: row.error_code,
    requestId: row.request_id,
  };
}
