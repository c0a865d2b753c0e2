import type { Executor } from '../../storage/database.js';
import type { RolesTable } from '../../storage/schema.js';

export type RoleRow = RolesTable;

export function createRolesStore(db: Executor) {
  return {
    async list(publicIds: readonly string[] | null): Promise<RoleRow[]> {
      let select = db.selectFrom('roles').selectAll();
      if (publicIds !== null) {
        if (publicIds.length === 0) return [];
        select = select.where('public_id', 'in', publicIds);
      }
      return select.orderBy('public_id').execute();
    },

    /** Creates each role or replaces its permissions, keeping createdAt of existing ones. */
    async upsert(publicIds: readonly string[], permissions: string, now: number): Promise<void> {
      await db
        .insertInto('roles')
        .values(publicIds.map((publicId) => ({ public_id: publicId, permissions, created_at: now, updated_at: now })))
        .onConflict((oc) => oc.column('public_id').doUpdateSet({ permissions, updated_at: now }))
        .execute();
    },
  };
}
