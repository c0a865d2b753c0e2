import { iso, parseJson } from '../channels/channels.present.js';
import type { RoleRow } from './roles.store.js';

export function presentRole(row: RoleRow) {
  return {
    publicId: row.public_id,
    permissions: parseJson<string[]>(row.permissions, []),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
