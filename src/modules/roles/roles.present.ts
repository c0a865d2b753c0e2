import { type Static, Type } from '@sinclair/typebox';
import { iso, parseJson } from '../../shared/values.js';
import type { RoleRow } from './roles.types.js';
import { IsoTime } from '../../shared/schemas.js';

/** roles row -> the role record of docs/contract.md, Records. */
export const RoleRecord = Type.Object(
  {
    publicId: Type.String({ description: "The role's name, as users' and channel members' roles list it" }),
    permissions: Type.Array(Type.String(), { description: 'Permission names (MUTE_CHANNEL, DELETE_MESSAGE, BAN_USER, ...)' }),
    createdAt: IsoTime('When the role was created'),
    updatedAt: IsoTime('When the role last changed'),
  },
  {
    description: 'A role: a named set of permissions (docs/contract.md, Records)',
    examples: [
      {
        publicId: 'moderator',
        permissions: ['MUTE_USER_INSIDE_CHANNEL', 'BAN_USER_FROM_CHANNEL', 'DELETE_MESSAGE'],
        createdAt: '2025-01-06T08:00:00.000Z',
        updatedAt: '2025-02-18T11:12:00.000Z',
      },
    ],
  },
);
export type RoleRecord = Static<typeof RoleRecord>;

export function presentRole(row: RoleRow): RoleRecord {
  return {
    publicId: row.public_id,
    permissions: parseJson<string[]>(row.permissions, []),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
