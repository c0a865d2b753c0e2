import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { isPermission } from './permissions.js';
import { createRolesStore } from './roles.store.js';
import type { RoleRow } from './roles.types.js';

export function createRolesService(deps: { db: Executor; clock: Clock }) {
  const roles = createRolesStore(deps.db);
  return {
    async list(filter: string[] | null): Promise<RoleRow[]> {
      return roles.list(filter);
    },

    async put(publicIds: string[], permissions: string[]): Promise<RoleRow[]> {
      const unknown = permissions.filter((name) => !isPermission(name));
      if (unknown.length > 0) {
        throw new AppError('parameters', `Unknown permission: ${unknown.join(', ')}.`, {
          detail: unknown.map((name) => ({ field: 'body.permissions', message: `${name} is not a permission of the catalogue` })),
        });
      }
      const unique = [...new Set(publicIds)];
      await roles.upsert(unique, JSON.stringify([...new Set(permissions)]), deps.clock.now());
      return roles.list(unique);
    },
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
