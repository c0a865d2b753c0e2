import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { Id } from '../../http/schemas.js';
import { PERMISSIONS } from '../../modules/roles/permissions.js';
import { presentRole } from '../../modules/roles/roles.present.js';
import type { RolesService } from '../../modules/roles/roles.service.js';

const tag = { tags: ['roles'] };

export function registerRoleRoutes(app: TypedApp, deps: { roles: RolesService }): void {
  app.get(
    '/roles',
    {
      schema: {
        ...tag,
        summary: 'List roles and the permission catalogue',
        querystring: Type.Object({ filter: Type.Optional(Type.Array(Id(), { maxItems: 100, description: 'Role names' })) }),
      },
    },
    async (request) => {
      const rows = await deps.roles.list(request.query.filter ?? null);
      return { status: 'success' as const, data: { roles: rows.map(presentRole), permissions: [...PERMISSIONS] } };
    },
  );

  app.put(
    '/roles',
    {
      schema: {
        ...tag,
        summary: 'Create roles or replace their permissions',
        body: Type.Object({
          publicIds: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
          permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 }),
        }),
      },
    },
    async (request) => {
      const rows = await deps.roles.put(request.body.publicIds, request.body.permissions);
      return { status: 'success' as const, data: { roles: rows.map(presentRole) } };
    },
  );
}
