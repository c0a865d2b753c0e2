import { Type } from '@sinclair/typebox';
import { adminActorOf } from '../../http/admin-admission.js';
import { answers } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { PERMISSIONS } from '../../modules/roles/permissions.js';
import type { UsersService } from '../../modules/users/users.service.js';
import { StringEnum } from '../../shared/schemas.js';
import { ANY_CONSOLE_USER, moderators } from './console-access.js';

const MeRecord = Type.Object(
  {
    kind: StringEnum(['adminToken', 'user'] as const, "'adminToken' for an admin token; 'user' for a person signed in to the console"),
    userId: Type.Union([Type.String(), Type.Null()], { description: 'The signed-in person; null for an admin token' }),
    displayName: Type.Union([Type.String(), Type.Null()], { description: "The person's display name; null for an admin token" }),
    networkAdmin: Type.Boolean({ description: 'True for an admin token and for a network admin: every route is open to them' }),
    permissions: Type.Array(StringEnum(PERMISSIONS), {
      description: 'The permissions held: all of them for an admin token and a network admin, else those of the global roles',
    }),
  },
  {
    description: 'Who is calling the admin API, and what they may do',
    examples: [
      { kind: 'user', userId: 'maria', displayName: 'Maria Rossi', networkAdmin: false, permissions: ['DELETE_MESSAGE', 'BAN_USER_FROM_CHANNEL'] },
      { kind: 'adminToken', userId: null, displayName: null, networkAdmin: true, permissions: [...PERMISSIONS] },
    ],
  },
);

/** GET /me: who the caller is, so the console shows only the screens they may use. */
export function registerMeRoute(app: TypedApp, deps: { users: Pick<UsersService, 'findById'> }): void {
  app.get(
    '/me',
    {
      config: moderators(ANY_CONSOLE_USER, 'reading who you are'),
      schema: {
        tags: ['console'],
        summary: 'Who is calling, and what they may do',
        description:
          'The caller of the admin API: an admin token, or a person signed in to the console (a network admin, or a moderator whose global roles grant permissions), with the permissions they hold. The console shows the screens these allow.',
        response: answers(MeRecord),
      },
    },
    async (request) => {
      const actor = adminActorOf(request);
      if (actor.kind === 'adminToken')
        return { kind: 'adminToken' as const, userId: null, displayName: null, networkAdmin: true, permissions: [...PERMISSIONS] };
      const user = await deps.users.findById(actor.userId);
      return {
        kind: 'user' as const,
        userId: actor.userId,
        displayName: user?.display_name ?? null,
        networkAdmin: actor.networkAdmin,
        permissions: PERMISSIONS.filter((permission) => actor.permissions.has(permission)),
      };
    },
  );
}
