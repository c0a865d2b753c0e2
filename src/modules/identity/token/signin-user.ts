import type { UserRow } from '../../users/users.types.js';
import { signsIn } from '../login.service.js';
import { oauthError } from '../oauth-errors.js';

export type FindUser = (userId: string) => Promise<UserRow | undefined>;

/** The grant's user still exists, is a person, and is not banned; otherwise the grant is dead. */
export async function requireSignInUser(findUser: FindUser, userId: string): Promise<UserRow> {
  const user = await findUser(userId);
  if (!user || !signsIn(user)) throw oauthError('invalid_grant', 'The user of this grant no longer exists.');
  if (user.is_global_ban === 1) throw oauthError('invalid_grant', 'User is banned from the system.');
  return user;
}
