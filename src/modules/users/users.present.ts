import { type Static, Type } from '@sinclair/typebox';
import { iso, parseJson } from '../../shared/values.js';
import type { ReceivedFlagRow, UserRow } from './users.types.js';
import { IsoTime, Nullable, OpenObject } from '../../shared/schemas.js';

/** users row -> the admin API's user record (docs/contract.md, Records), plus identity fields. */
export const UserRecord = Type.Object(
  {
    userId: Type.String(),
    displayName: Type.String({ description: "'' when the user has none" }),
    roles: Type.Array(Type.String(), { description: "The user's roles across the network (publicIds of roles)" }),
    metadata: OpenObject("The operator's own data about the user"),
    flagCount: Type.Integer({ description: 'How many users flagged this user' }),
    isGlobalBan: Type.Boolean({ description: 'Whether the user is banned from the whole network' }),
    username: Type.String({ description: "The sign-in name; '' when none" }),
    firstname: Type.String({ description: "'' when none" }),
    lastname: Type.String({ description: "'' when none" }),
    email: Type.String({ description: "'' when none" }),
    position: Type.String({ description: "Job title; '' when none" }),
    status: Type.String({ description: "'' when none" }),
    extras: OpenObject("Further profile fields of the operator's own, returned by /userinfo as they are"),
    avatar: Type.String({ description: "The avatar's file id, served at /file/view/<avatar>; '' when none" }),
    createdAt: IsoTime('When the user was created'),
    updatedAt: IsoTime('When the user last changed'),
  },
  {
    description: 'A user (docs/contract.md, Records, with the identity fields of Surfaces beyond the original)',
    examples: [
      {
        userId: 'alice',
        displayName: 'Alice Martin',
        roles: ['moderator'],
        metadata: { team: 'support' },
        flagCount: 0,
        isGlobalBan: false,
        username: 'alice',
        firstname: 'Alice',
        lastname: 'Martin',
        email: 'alice@example.com',
        position: 'Support lead',
        status: 'On call this week',
        extras: { department: 'Customer care' },
        avatar: '67d3f5a5e4b0a1c2d3e4f520',
        createdAt: '2025-01-06T08:00:00.000Z',
        updatedAt: '2025-03-01T10:15:42.318Z',
      },
    ],
  },
);
export type UserRecord = Static<typeof UserRecord>;

export function presentUser(row: UserRow): UserRecord {
  return {
    userId: row.id,
    displayName: row.display_name ?? '',
    roles: parseJson<string[]>(row.roles, []),
    metadata: parseJson<Record<string, unknown>>(row.metadata, {}),
    flagCount: row.flag_count,
    isGlobalBan: row.is_global_ban === 1,
    username: row.username ?? '',
    firstname: row.firstname ?? '',
    lastname: row.lastname ?? '',
    email: row.email ?? '',
    position: row.position ?? '',
    status: row.status ?? '',
    extras: parseJson<Record<string, unknown>>(row.extras, {}),
    avatar: row.avatar ?? '',
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** A flag the user received: who raised it, why, and when. */
export const ReceivedFlagRecord = Type.Object(
  {
    flagger: Type.Object({
      userId: Type.String(),
      displayName: Type.String({ description: "'' when the flagger has none (or no longer exists)" }),
    }),
    reason: Nullable(Type.String(), 'What the flagger wrote; null when they wrote nothing'),
    createdAt: IsoTime('When the flag was raised'),
  },
  {
    description: 'A flag a user received from another user',
    examples: [{ flagger: { userId: 'bob', displayName: 'Bob Stone' }, reason: 'Spams every channel', createdAt: '2025-03-02T09:12:00.000Z' }],
  },
);
export type ReceivedFlagRecord = Static<typeof ReceivedFlagRecord>;

export function presentReceivedFlag(row: ReceivedFlagRow): ReceivedFlagRecord {
  return {
    flagger: { userId: row.flagger_id, displayName: row.display_name ?? '' },
    reason: row.reason,
    createdAt: iso(row.created_at),
  };
}
