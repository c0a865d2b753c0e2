import { AppError } from '../../shared/errors.js';
import { type Actor, holdsEveryRight } from '../roles/admin-actor.js';
import type { UserRow } from './users.types.js';

/**
 * Who may act on a person's account, membership or standing (ban, mute, remove, edit, review). Admin
 * tokens and network admins act on anyone; a moderator (a console user or a client API user whose roles
 * grant a permission) acts on people, never on a network admin: a moderator who could ban the network
 * admins could lock out everyone who may take the moderator's role away.
 */
export function mayActOnUser(actor: Actor, target: Pick<UserRow, 'kind'> | undefined): boolean {
  return holdsEveryRight(actor) || target?.kind !== 'admin';
}

/** 403 / 400301 unless the actor may act on every one of the targets (unknown users are the service's 404). */
export function requireMayActOnUsers(actor: Actor, targets: ReadonlyArray<Pick<UserRow, 'kind'> | undefined>): void {
  if (targets.every((target) => mayActOnUser(actor, target))) return;
  throw new AppError('permissionDenied', 'A moderator cannot act on a network admin; ask a network admin.');
}
