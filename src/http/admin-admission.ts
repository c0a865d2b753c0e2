import type { FastifyRequest } from 'fastify';
import type { AdminActor } from '../modules/roles/admin-actor.js';
import { type Permission, PERMISSIONS } from '../modules/roles/permissions.js';
import type { Principal } from '../modules/tokens/tokens.service.js';
import type { UserRow } from '../modules/users/users.types.js';
import { AppError } from '../shared/errors.js';
import { type AdmitOther, wrongTokenKind } from './auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    adminActor: AdminActor | null;
  }
}

/** The admin API's actor for this request, set by the admin surface's authentication. */
export function adminActorOf(request: FastifyRequest): AdminActor {
  if (request.adminActor) return request.adminActor;
  const principal = request.principal;
  if (principal?.kind === 'admin') return { kind: 'adminToken', tokenId: principal.tokenId };
  throw new AppError('unauthorized', 'Missing bearer token.');
}

export interface ConsoleAdmissionDeps {
  /** The console's OAuth client: only tokens issued to it are taken. */
  consoleClientId: string;
  findUser(userId: string): Promise<UserRow | undefined>;
  /** The permissions the user holds through global roles. */
  globalPermissionsOf(userId: string): Promise<ReadonlySet<Permission>>;
  /** Throws when the route is not for this actor (the surface's table of who may call what). */
  authorizeRoute(request: FastifyRequest): void;
}

/**
 * The actor of a user signed in to the console: a network admin (users.kind 'admin', every right) or a
 * moderator (a permission through a global role). Null for anyone else.
 */
async function consoleActorOf(user: UserRow, deps: ConsoleAdmissionDeps): Promise<AdminActor | null> {
  if (user.kind === 'admin') return { kind: 'user', userId: user.id, networkAdmin: true, permissions: new Set(PERMISSIONS) };
  if (user.kind !== 'user') return null;
  const permissions = await deps.globalPermissionsOf(user.id);
  return permissions.size > 0 ? { kind: 'user', userId: user.id, networkAdmin: false, permissions } : null;
}

/**
 * The admin API's door for user access tokens: one the console's client got for a network admin or a
 * moderator who is not globally banned passes, with request.adminActor set; any other user token is
 * the 403 it always was; a banned user's is 403 / 400312.
 */
export function admitConsoleUser(deps: ConsoleAdmissionDeps): AdmitOther {
  return async function admitConsole(request: FastifyRequest, principal: Principal): Promise<void> {
    if (principal.kind !== 'user' || principal.clientId !== deps.consoleClientId) throw wrongTokenKind(principal.kind, ['admin']);
    const user = await deps.findUser(principal.userId);
    if (!user) throw new AppError('unauthorized', 'The user of this token no longer exists.');
    if (user.is_global_ban === 1) throw new AppError('globallyBanned');
    const actor = await consoleActorOf(user, deps);
    if (actor === null) {
      throw new AppError(
        'forbidden',
        'This console sign-in cannot use the admin API: it takes network admins and people whose global roles grant a permission (ask a network admin for a role).',
      );
    }
    request.principal = principal;
    request.adminActor = actor;
    deps.authorizeRoute(request);
  };
}
