import type { UserRow } from '../users/users.types.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { LoginThrottle } from './throttle.js';

/**
 * Who signs in with a password: people, that is users and network admins (kind 'admin', made with
 * `parley users create-admin`). Bots never do; the accounts admin tokens act as have no password.
 */
export const signsIn = (user: Pick<UserRow, 'kind'>): boolean => user.kind === 'user' || user.kind === 'admin';

export type LoginResult =
  | { ok: true; user: UserRow }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'banned' };

/**
 * Checks a username and password. The throttle is asked first, so a throttled account is not even
 * checked; an unknown username costs the same scrypt work as a known one, so timing does not tell
 * which usernames exist; the ban is told only to someone who knows the password.
 */
export function createLoginService(deps: { findUserByUsername: (username: string) => Promise<UserRow | undefined>; throttle: LoginThrottle }) {
  let decoy: Promise<string> | null = null;
  const decoyHash = (): Promise<string> => (decoy ??= hashPassword('parley decoy password'));

  return {
    async login(username: string, password: string, address: string): Promise<LoginResult> {
      const keys = deps.throttle.keysFor(username, address);
      const retryAfterSeconds = await deps.throttle.begin(keys);
      if (retryAfterSeconds !== null) return { ok: false, reason: 'throttled', retryAfterSeconds };
      let candidate: UserRow | null = null;
      // null until the check is done: an error on the way records nothing, but the attempt still ends.
      let outcome: 'passed' | 'failed' | null = null;
      try {
        const user = username === '' ? undefined : await deps.findUserByUsername(username);
        candidate = user && signsIn(user) && user.password_hash ? user : null;
        const matches = await verifyPassword(password, candidate?.password_hash ?? (await decoyHash()));
        outcome = candidate !== null && matches ? 'passed' : 'failed';
      } finally {
        await deps.throttle.finish(keys, outcome);
      }
      if (candidate === null || outcome !== 'passed') return { ok: false, reason: 'invalid' };
      if (candidate.is_global_ban === 1) return { ok: false, reason: 'banned' };
      return { ok: true, user: candidate };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
