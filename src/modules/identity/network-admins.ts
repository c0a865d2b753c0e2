import type { Clock } from '../../clock.js';
import { AppError } from '../../shared/errors.js';
import type { Executor } from '../../storage/database.js';
import { isUniqueViolation } from '../../storage/transactions.js';
import { insertUserRow } from '../users/users.service.js';
import { createNetworkAdminsStore } from './network-admins.store.js';
import { hashPassword } from './passwords.js';

/** What a network admin's username may be: it is also their user id, which travels in URL paths. */
export const NETWORK_ADMIN_USERNAME = /^(?!\.\.?$)[A-Za-z0-9._@+-]{1,50}$/;

/** The shortest password a network admin may have (the admin API's users take the same). */
export const MIN_PASSWORD_LENGTH = 8;

export interface NewNetworkAdmin {
  username: string;
  password: string;
  displayName?: string;
}

/**
 * Network admins: people (users.kind 'admin') who sign in with a username and password like users do,
 * and hold every right on the admin API through the console. Their user id is their username.
 */
export function createNetworkAdmins(deps: { db: Executor; clock: Clock }) {
  const store = createNetworkAdminsStore(deps.db);

  return {
    /** Creates the account; a taken username or id is a 409 naming it. */
    async create(input: NewNetworkAdmin): Promise<{ userId: string }> {
      if (!NETWORK_ADMIN_USERNAME.test(input.username)) {
        throw new AppError('parameters', 'The username must be 1 to 50 letters, digits or . _ @ + - (it is also the user id).');
      }
      if (input.password.length < MIN_PASSWORD_LENGTH) throw new AppError('parameters', `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
      const taken = await store.findByIdOrUsername(input.username, input.username);
      if (taken) throw alreadyTaken(input.username, taken.kind);
      const now = deps.clock.now();
      try {
        await insertUserRow(deps.db, {
          id: input.username,
          kind: 'admin',
          display_name: input.displayName ?? input.username,
          roles: '[]',
          metadata: '{}',
          flag_count: 0,
          is_global_ban: 0,
          username: input.username,
          password_hash: await hashPassword(input.password),
          firstname: null,
          lastname: null,
          email: null,
          position: null,
          status: null,
          extras: '{}',
          avatar: null,
          created_at: now,
          updated_at: now,
        });
      } catch (error) {
        // Another command took the name between the check and the insert.
        if (isUniqueViolation(error)) throw alreadyTaken(input.username, null);
        throw error;
      }
      return { userId: input.username };
    },

    /** Whether someone can sign in to the console as a network admin yet. */
    exists(): Promise<boolean> {
      return store.anyWithPassword();
    },
  };
}

function alreadyTaken(username: string, kind: string | null): AppError {
  const holder = kind === 'admin' ? 'a network admin' : kind === null ? 'someone' : `a ${kind}`;
  return new AppError('alreadyExists', `The username or user id ${username} is taken by ${holder}: pick another username.`);
}

export type NetworkAdmins = ReturnType<typeof createNetworkAdmins>;
