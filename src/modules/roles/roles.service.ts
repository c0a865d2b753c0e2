import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { runTransaction } from '../../storage/transactions.js';
import { isPermission } from './permissions.js';
import { createRolesStore } from './roles.store.js';
import type { RoleRow } from './roles.types.js';

/** Holders named in a refusal, at most this many of each kind. */
const NAMED_HOLDERS = 5;

function heldError(publicId: string, userIds: readonly string[], memberships: ReadonlyArray<{ channelId: string; userId: string }>): AppError {
  const some = (names: readonly string[]) =>
    `${names.slice(0, NAMED_HOLDERS).join(', ')}${names.length > NAMED_HOLDERS ? ` and ${names.length - NAMED_HOLDERS} more` : ''}`;
  const parts = [
    ...(userIds.length > 0 ? [`${userIds.length} user${userIds.length === 1 ? '' : 's'} (${some(userIds)})`] : []),
    ...(memberships.length > 0
      ? [`${memberships.length} channel member${memberships.length === 1 ? '' : 's'} (${some(memberships.map((row) => `${row.userId} in ${row.channelId}`))})`]
      : []),
  ];
  return new AppError('conflict', `Role ${publicId} is held by ${parts.join(' and ')}: take it from them before deleting it.`, {
    detail: [{ field: 'params.publicId', message: 'is held by users or channel members' }],
  });
}

export function createRolesService(deps: { db: Executor; clock: Clock }) {
  const roles = createRolesStore(deps.db);
  return {
    async list(filter: string[] | null): Promise<RoleRow[]> {
      return roles.list(filter);
    },

    /**
     * Deletes a role nobody holds. A role still named by a user's global roles or a channel member's
     * roles is a 409 naming some of them: taking it from them first is a decision about those people,
     * and a name left dangling would grant again whatever a later role of that name grants.
     */
    async remove(publicId: string): Promise<void> {
      await runTransaction(deps.db, async (trx) => {
        const store = createRolesStore(trx);
        const [role] = await store.list([publicId]);
        if (!role) throw notFound(`Role ${publicId}`);
        const { userIds, memberships } = await store.holdersOf(publicId);
        if (userIds.length > 0 || memberships.length > 0) throw heldError(publicId, userIds, memberships);
        await store.delete(publicId);
      });
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
