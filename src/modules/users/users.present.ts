import { iso, parseJson } from '../channels/channels.present.js';
import type { UserRow } from './users.store.js';

/** users row -> the admin API's user record (API-CONVENTIONS.md section 3), plus identity fields. */
export function presentUser(row: UserRow) {
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

export type UserRecord = ReturnType<typeof presentUser>;
