import { AppError } from '../../shared/errors.js';
import { type Actor, holdsEveryRight } from '../roles/admin-actor.js';
import type { Permission } from '../roles/permissions.js';
import type { MessageRow } from './messages.present.js';

/**
 * What an actor holds where a message is: every right (admin tokens, network admins), or the
 * permissions their roles grant in the message's channel (a member's global and channel roles, a
 * console moderator's global roles).
 */
export interface HeldRights {
  actor: Actor;
  permissions: ReadonlySet<Permission>;
}

/** The author may delete their message; anyone else needs DELETE_MESSAGE in its channel. */
export function mayDeleteMessage(held: HeldRights, message: Pick<MessageRow, 'user_id'>): boolean {
  if (holdsEveryRight(held.actor)) return true;
  if (held.actor.kind !== 'adminToken' && held.actor.userId === message.user_id) return true;
  return held.permissions.has('DELETE_MESSAGE');
}

/** 403 / 400301 unless mayDeleteMessage. */
export function requireMayDeleteMessage(held: HeldRights, message: Pick<MessageRow, 'user_id'>): void {
  if (!mayDeleteMessage(held, message)) throw new AppError('permissionDenied', 'Permission DELETE_MESSAGE is required.');
}
