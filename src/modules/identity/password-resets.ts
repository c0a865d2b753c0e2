import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import type { UserRow } from '../users/users.types.js';
import { MIN_PASSWORD_LENGTH } from './network-admins.js';
import { createPasswordResetsStore, type PasswordResetRow } from './password-resets.store.js';

/** How long a password-reset link works: 30 minutes. */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
/** The longest password the admin API and the reset page take. */
export const MAX_PASSWORD_LENGTH = 256;
/** A token is 32 random bytes, base64url: 43 characters. Anything much longer is no token of ours. */
const MAX_TOKEN_LENGTH = 100;

/** The key a link's token is stored under: its SHA-256, hex. */
const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** What is wrong with a new password typed twice, in words for the page; null when nothing is. */
export function passwordProblem(password: string, confirmation: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password must be at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password !== confirmation) return 'The two passwords differ.';
  return null;
}

/**
 * Password-reset links an admin hands to a person (Parley sends no email): a random token, stored only
 * as its SHA-256, valid 30 minutes and once; a newer link for the same user replaces it. Using one sets
 * the password as the admin API does (users module), which signs the user out everywhere.
 */
export function createPasswordResets(deps: {
  db: Executor;
  clock: Clock;
  findUser: (userId: string) => Promise<UserRow | undefined>;
  /** Sets the password and revokes the user's sessions, grants and tokens (PUT /api/v2/users with a password). */
  setPassword: (userId: string, password: string) => Promise<unknown>;
}) {
  const store = createPasswordResetsStore(deps.db);

  /** The live link a token names, or null: unknown, replaced, used and expired alike. */
  async function live(token: string | null | undefined): Promise<PasswordResetRow | null> {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    const hash = hashOf(token);
    const row = await store.find(hash);
    if (row === undefined) return null;
    const stored = Buffer.from(row.token_hash, 'utf8');
    const given = Buffer.from(hash, 'utf8');
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
    return row.expires_at > deps.clock.now() ? row : null;
  }

  return {
    /** A link's token for the user, replacing their earlier one; bots and users without a username have none. */
    async issue(userId: string): Promise<{ token: string; expiresAt: number }> {
      const user = await deps.findUser(userId);
      if (!user) throw notFound('User');
      if (user.kind !== 'user') throw new AppError('conflict', 'A bot signs in with its client credentials, not a password.');
      if (!user.username) throw new AppError('conflict', 'The user has no username to sign in with: set one first.');
      const now = deps.clock.now();
      const token = randomBytes(32).toString('base64url');
      await store.deleteExpired(now);
      await store.replace({ user_id: userId, token_hash: hashOf(token), expires_at: now + PASSWORD_RESET_TTL_MS, created_at: now });
      return { token, expiresAt: now + PASSWORD_RESET_TTL_MS };
    },

    /** Whether the token names a live link (the page shows the form, or the one error page). */
    async isLive(token: string | null | undefined): Promise<boolean> {
      return (await live(token)) !== null;
    },

    /**
     * Uses the link: consumes it (one use wins), then sets the password, which ends every session, grant
     * and token of the user. 'invalid' for a token that names no live link.
     */
    async complete(token: string | null | undefined, password: string): Promise<'done' | 'invalid'> {
      const row = await live(token);
      if (row === null) return 'invalid';
      if (!(await store.consume(row.token_hash, row.user_id, deps.clock.now()))) return 'invalid';
      if (!(await deps.findUser(row.user_id))) return 'invalid';
      await deps.setPassword(row.user_id, password);
      return 'done';
    },
  };
}

export type PasswordResets = ReturnType<typeof createPasswordResets>;
