import { Type } from '@sinclair/typebox';
import type { TypedApp } from '../../http/typed-app.js';
import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import { Id } from '../../shared/schemas.js';
import { PERMISSIONS } from '../../modules/roles/permissions.js';
import { presentRole, RoleRecord } from '../../modules/roles/roles.present.js';
import type { RolesService } from '../../modules/roles/roles.service.js';
import { networkAdmins } from './console-access.js';

const tag = { tags: ['roles'] };
const roleExample = (RoleRecord.examples as unknown[])[0];

const RolesAnswer = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Object({
      roles: Type.Array(RoleRecord, { description: 'In publicId order' }),
      permissions: Type.Array(Type.String(), { description: 'Every permission a role can grant' }),
    }),
  },
  { description: 'The roles, and the permission catalogue', examples: [{ status: 'success', data: { roles: [roleExample], permissions: [...PERMISSIONS] } }] },
);

const PutRolesAnswer = Type.Object(
  { status: Type.Literal('success'), data: Type.Object({ roles: Type.Array(RoleRecord, { description: 'The roles named, as they are now' }) }) },
  { description: 'The roles created or changed', examples: [{ status: 'success', data: { roles: [roleExample] } }] },
);

const PutRolesBody = Type.Object(
  {
    publicIds: Type.Array(Id(), { minItems: 1, maxItems: 100, description: 'Role names: each is created, or has its permissions replaced' }),
    permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100, description: 'Names from the permission catalogue (GET /roles)' }),
  },
  { examples: [{ publicIds: ['moderator'], permissions: ['MUTE_USER_INSIDE_CHANNEL', 'BAN_USER_FROM_CHANNEL', 'DELETE_MESSAGE'] }] },
);

export function registerRoleRoutes(app: TypedApp, deps: { roles: RolesService }): void {
  app.get(
    '/roles',
    {
      config: networkAdmins('roles'),
      schema: {
        ...tag,
        summary: 'List roles and the permission catalogue',
        description: 'Lists the roles (all, or those named in `filter`) and every permission a role can grant.',
        querystring: Type.Object({ filter: Type.Optional(Type.Array(Id(), { maxItems: 100, description: 'Role names' })) }),
        response: answers(RolesAnswer),
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
      config: { ...networkAdmins('roles'), audit: 'role.upsert' },
      schema: {
        ...tag,
        summary: 'Create roles or replace their permissions',
        description: 'Creates each role named, or replaces its permissions, and answers the roles. A permission outside the catalogue is a 422.',
        consumes: JSON_AND_FORM,
        body: PutRolesBody,
        response: answers(PutRolesAnswer),
      },
    },
    async (request) => {
      const rows = await deps.roles.put(request.body.publicIds, request.body.permissions);
      return { status: 'success' as const, data: { roles: rows.map(presentRole) } };
    },
  );

  app.delete(
    '/roles/:publicId',
    {
      config: networkAdmins('roles'),
      schema: {
        ...tag,
        summary: 'Delete a role',
        description:
          'Deletes a role that no user and no channel member holds. A role still held is a 409 naming some of its holders: take it from them first ' +
          '(PUT /users for global roles). An unknown role is a 404.',
        params: Type.Object({ publicId: Id('The role to delete') }, { examples: [{ publicId: 'moderator' }] }),
        response: answers(SuccessAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await deps.roles.remove(request.params.publicId);
      return { status: 'success' as const };
    },
  );
}
