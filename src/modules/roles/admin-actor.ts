import { AppError } from '../../shared/errors.js';
import type { Permission } from './permissions.js';

/**
 * Who acts on the admin API: an admin token (every right), or a person signed in to the console with a
 * user access token issued to the console's client: a network admin (every right) or a moderator, whose
 * global roles grant the permissions they hold.
 */
export type AdminActor =
  | { kind: 'adminToken'; tokenId: string }
  | { kind: 'user'; userId: string; networkAdmin: boolean; permissions: ReadonlySet<Permission> };

/**
 * Anyone a policy decides about: an admin API actor, or a person acting through the client API as a
 * member of their channels (whose moderator rights, if any, come from roles per channel).
 */
export type Actor = AdminActor | { kind: 'member'; userId: string };

/** Admin tokens and network admins hold every right; policies decide for everyone else. */
export function holdsEveryRight(actor: Actor): boolean {
  return actor.kind === 'adminToken' || (actor.kind === 'user' && actor.networkAdmin);
}

/** True when the actor holds every right or the permission named. */
export function actorMay(actor: AdminActor, permission: Permission): boolean {
  if (holdsEveryRight(actor)) return true;
  return actor.kind === 'user' && actor.permissions.has(permission);
}

/** 403 / 400301 unless the actor may. */
export function requireActorMay(actor: AdminActor, permission: Permission): void {
  if (!actorMay(actor, permission)) throw new AppError('permissionDenied', `Permission ${permission} is required.`);
}

/** The id the audit trail and reviews record for the actor: the token id, or the user id. */
export function actorIdOf(actor: AdminActor): string {
  return actor.kind === 'adminToken' ? actor.tokenId : actor.userId;
}
