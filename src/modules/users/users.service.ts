import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newestFirstPage } from '../../shared/keyset.js';
import { filterFields, filtersOfPage, type PageTokens, type Paging } from '../../shared/paging.js';
import type { Executor } from '../../storage/database.js';
import { afterCommit, isUniqueViolation, runTransaction } from '../../storage/transactions.js';
import { parseJson } from '../../shared/values.js';
import { jsonWithinLimit } from '../channels/channels.service.js';
import { revokeUserCredentials } from '../identity/credentials.service.js';
import { hashPassword } from '../identity/passwords.js';
import { searchFold } from '../../storage/search-fold.js';
import { type AccountInput, createUsersStore, type UserChanges, type UsersStore } from './users.store.js';
import type { ReceivedFlagRow, UserRow } from './users.types.js';
import type { Notices } from '../../events/notices.js';
import type { RolesService } from '../roles/roles.service.js';
import type { RoleRow } from '../roles/roles.types.js';
import { flagReasonOf } from '../flags/flag-reason.js';
import { tallyFlag } from '../stats/daily-tallies.js';

export interface UpsertUserInput {
  userId: string;
  displayName?: string;
  roles?: string[];
  metadata?: Record<string, unknown>;
  username?: string;
  password?: string;
  firstname?: string;
  lastname?: string;
  email?: string;
  position?: string;
  status?: string;
  extras?: Record<string, unknown>;
}

export interface ListUsersInput {
  search?: string;
  filter?: 'all' | 'flagged' | 'banned';
  pageToken?: string;
  limit?: number;
}

export interface ReceivedFlagsInput {
  pageToken?: string | undefined;
  limit?: number | undefined;
}

const RECEIVED_FLAGS_PAGE_SIZE = 20;

/** A page token: the user to continue from, the way, the page size and the filters' key. */
interface UserCursor extends Record<string, unknown> {
  u: string;
  d: 'n' | 'p';
  n: number;
  f: string;
  q?: unknown;
}

/**
 * The filters of a users list, in the canonical form its tokens carry (the search folded). `b` is
 * there only for the banned filter, so the tokens of the other lists read as they always did.
 */
interface UserFilters extends Record<string, unknown> {
  s: string | null;
  g: boolean;
  b?: true;
}

const NO_USER_FILTERS: UserFilters = { s: null, g: false };
const isUserFilters = (value: unknown): value is UserFilters => {
  const v = value as Partial<UserFilters> | null;
  return v !== null && typeof v === 'object' && (v.s === null || typeof v.s === 'string') && typeof v.g === 'boolean' && (v.b === undefined || v.b === true);
};

const isUserCursor = (value: Record<string, unknown>): value is UserCursor =>
  typeof value.u === 'string' && (value.d === 'n' || value.d === 'p') && Number.isInteger(value.n) && typeof value.f === 'string';

async function changesFrom(input: UpsertUserInput): Promise<UserChanges> {
  const changes: UserChanges = {};
  if (input.displayName !== undefined) changes.display_name = input.displayName;
  if (input.roles !== undefined) changes.roles = JSON.stringify([...new Set(input.roles)]);
  if (input.metadata !== undefined) changes.metadata = jsonWithinLimit(input.metadata, 'metadata');
  if (input.extras !== undefined) changes.extras = jsonWithinLimit(input.extras, 'extras');
  if (input.username !== undefined) changes.username = input.username;
  if (input.password !== undefined) changes.password_hash = await hashPassword(input.password);
  for (const field of ['firstname', 'lastname', 'email', 'position', 'status'] as const) {
    if (input[field] !== undefined) changes[field] = input[field];
  }
  return changes;
}

/**
 * Creates the user, or changes only the fields given, in one transaction. Setting the password of
 * an existing user signs them out everywhere in the same transaction: whoever held the old password
 * keeps none of what it got them (sessions, grants, access tokens). Answers whether it did.
 */
async function writeUser(db: Executor, input: UpsertUserInput, changes: UserChanges, now: number): Promise<boolean> {
  return runTransaction(db, async (trx) => {
    const store = createUsersStore(trx);
    const existing = await store.findById(input.userId);
    if (existing) {
      await store.update(input.userId, changes, now);
      if (changes.password_hash === undefined) return false;
      await revokeUserCredentials(trx, input.userId, now);
      return true;
    }
    await store.insert({
      id: input.userId,
      kind: 'user',
      display_name: changes.display_name ?? input.userId,
      roles: changes.roles ?? '[]',
      metadata: changes.metadata ?? '{}',
      flag_count: 0,
      is_global_ban: 0,
      username: changes.username ?? null,
      password_hash: changes.password_hash ?? null,
      firstname: changes.firstname ?? null,
      lastname: changes.lastname ?? null,
      email: changes.email ?? null,
      position: changes.position ?? null,
      status: changes.status ?? null,
      extras: changes.extras ?? '{}',
      avatar: null,
      created_at: now,
      updated_at: now,
    });
    return false;
  });
}

/** One page of users in id order, with the tokens of the pages around it. */
async function listUsers(users: UsersStore, pageTokens: PageTokens, input: ListUsersInput): Promise<{ rows: UserRow[]; paging: Paging }> {
  const requested: UserFilters = {
    s: input.search && input.search !== '' ? searchFold(input.search) : null,
    g: input.filter === 'flagged',
    ...(input.filter === 'banned' ? { b: true as const } : {}),
  };
  const cursor = input.pageToken ? pageTokens.decode(input.pageToken, isUserCursor) : null;
  // A token continues its own list: sent alone it brings its filters, sent with others it is refused.
  const filters = filtersOfPage(requested, NO_USER_FILTERS, cursor, isUserFilters);
  const limit = input.limit ?? cursor?.n ?? 10;
  const fetched = await users.listPage({
    search: filters.s,
    flaggedOnly: filters.g,
    bannedOnly: filters.b === true,
    limit,
    after: cursor?.d === 'n' ? cursor.u : null,
    before: cursor?.d === 'p' ? cursor.u : null,
  });
  const backwards = cursor?.d === 'p';
  const hasMore = fetched.length > limit;
  const rows = backwards ? fetched.slice(hasMore ? 1 : 0) : fetched.slice(0, limit);
  const first = rows[0];
  const last = rows[rows.length - 1];
  const carried = filterFields(filters);
  return {
    rows,
    paging: {
      next: last && (backwards || hasMore) ? pageTokens.encode({ u: last.id, d: 'n', n: limit, ...carried }) : null,
      prev: first && (backwards ? hasMore : cursor !== null) ? pageTokens.encode({ u: first.id, d: 'p', n: limit, ...carried }) : null,
    },
  };
}

export function createUsersService(deps: {
  db: Executor;
  clock: Clock;
  pageTokens: PageTokens;
  /**
   * Told after a global ban or unban commits (streams end, caches keyed on a user's standing forget
   * it), and after a password change signed the user out (streams opened with their tokens end).
   */
  notices: Notices;
  /** The users list names the roles its users hold, as the roles module keeps them. */
  roles: RolesService;
}) {
  const users = createUsersStore(deps.db);
  const { roles } = deps;

  async function requireUser(userId: string): Promise<UserRow> {
    const user = await users.findById(userId);
    if (!user) throw notFound('User');
    return user;
  }

  /** The roles that exist among those the users hold, by name; a name without a role grants nothing and is left out. */
  async function rolesHeldBy(rows: readonly UserRow[]): Promise<RoleRow[]> {
    const names = new Set(rows.flatMap((row) => parseJson<string[]>(row.roles, [])));
    return names.size === 0 ? [] : roles.list([...names]);
  }

  return {
    requireUser,

    /** Creates the user, or changes only the fields given. */
    async upsert(input: UpsertUserInput): Promise<UserRow> {
      const now = deps.clock.now();
      const changes = await changesFrom(input);
      for (let attempt = 1; ; attempt += 1) {
        try {
          if (await writeUser(deps.db, input, changes, now)) deps.notices.publish({ type: 'user.tokensRevoked', userId: input.userId });
          return requireUser(input.userId);
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          const holder = input.username ? await users.findByUsername(input.username) : undefined;
          if (holder && holder.id !== input.userId) throw new AppError('alreadyExists', `Username ${input.username ?? ''} is taken.`);
          // Two creates of one new user at once: the other insert won, so this one now updates it.
          if (attempt >= 3) throw error;
        }
      }
    },

    /** One page of users, with the roles they hold. */
    async list(input: ListUsersInput): Promise<{ rows: UserRow[]; roles: RoleRow[]; paging: Paging }> {
      const { rows, paging } = await listUsers(users, deps.pageTokens, input);
      return { rows, roles: await rolesHeldBy(rows), paging };
    },

    /** The user, read in a command's transaction `within` where given. */
    findById(userId: string, within?: Executor): Promise<UserRow | undefined> {
      return (within ? createUsersStore(within) : users).findById(userId);
    },

    /** The users of these ids that exist, in no particular order. */
    findByIds(userIds: readonly string[]): Promise<UserRow[]> {
      return users.findByIds(userIds);
    },

    /** The user holding this sign-in name, if any. */
    findByUsername(username: string): Promise<UserRow | undefined> {
      return users.findByUsername(username);
    },

    async isGloballyBanned(userId: string): Promise<boolean> {
      return (await users.findById(userId))?.is_global_ban === 1;
    },

    /**
     * A ban revokes the user's sessions, grants and codes in its transaction; their access tokens
     * answer 403 / 400312 while it lasts, and the unban revokes them in its own. So an unban brings
     * nothing back: the user signs in again (a bot asks for a new token). Runs in a command's
     * transaction `within` where given.
     */
    async setGlobalBan(userId: string, banned: boolean, within?: Executor): Promise<void> {
      const now = deps.clock.now();
      await runTransaction(within ?? deps.db, async (trx) => {
        const inTrx = createUsersStore(trx);
        const user = await inTrx.findById(userId);
        if (!user) throw notFound('User');
        if (!banned && user.is_global_ban === 0) throw new AppError('alreadyUnbanned', 'User is not banned.');
        await inTrx.setGlobalBan(userId, banned, now);
        await revokeUserCredentials(trx, userId, now, { accessTokens: !banned });
        // Told once the ban is written: an instance that reads the user's standing then reads it banned.
        afterCommit(trx, () => deps.notices.publish({ type: 'user.globalBanChanged', userId, banned }));
      });
    },

    /** The flags the user received, newest first, a page at a time, with each flagger's name. */
    async receivedFlags(userId: string, input: ReceivedFlagsInput): Promise<{ items: ReceivedFlagRow[]; paging: Paging }> {
      await requireUser(userId);
      return newestFirstPage({
        pageTokens: deps.pageTokens,
        pageToken: input.pageToken,
        limit: input.limit,
        defaultLimit: RECEIVED_FLAGS_PAGE_SIZE,
        filters: { flagsOf: userId },
        fetch: (limit, cursor) => users.receivedFlagsPage(userId, limit, cursor),
        keyOf: (flag) => ({ at: flag.created_at, id: flag.flagger_id }),
      });
    },

    /** Clears the user's flags and answers the user as they are then. */
    async clearFlags(userId: string): Promise<UserRow> {
      await requireUser(userId);
      await runTransaction(deps.db, (trx) => createUsersStore(trx).clearFlags(userId, deps.clock.now()));
      return requireUser(userId);
    },

    /**
     * One flag per flagger and target, never of oneself, with the flagger's reason if they gave one;
     * answers false when this flagger had flagged them already (the first flag and its reason stay).
     */
    async flag(flaggerId: string, targetUserId: string, reasonText?: string): Promise<boolean> {
      const reason = flagReasonOf(reasonText);
      if (flaggerId === targetUserId) throw new AppError('badRequest', 'You cannot flag yourself.');
      await requireUser(targetUserId);
      const now = deps.clock.now();
      return runTransaction(deps.db, async (trx) => tallyFlag(trx, 'user', await createUsersStore(trx).addFlag(targetUserId, flaggerId, reason, now), now));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

export type { AccountInput } from './users.store.js';

/*
 * Users rows that other modules make, written here and in the caller's transaction when it passes its
 * `trx`: the accounts of bots and admin tokens, network admins, avatars, demo users.
 */

/** Clears the user's flags in the transaction `trx` of a review and answers them, newest first (the user row first, for lock order). */
export function takeUserFlags(trx: Executor, userId: string, now: number): Promise<Array<{ flagger_id: string; reason: string | null; created_at: number }>> {
  return createUsersStore(trx).takeFlags(userId, now);
}

/** An account (a bot, an admin token's user) with only a kind and a name; a row of that id stays as it is. */
export function ensureAccountUser(db: Executor, input: AccountInput): Promise<void> {
  return createUsersStore(db).insertIfMissing(input);
}

/** An account with only a kind and a name; a row of that id already there is a unique violation. */
export function insertAccountUser(db: Executor, input: AccountInput): Promise<void> {
  return createUsersStore(db).insertAccount(input);
}

/** A whole users row, as the caller made it; a taken id or username is a unique violation. */
export function insertUserRow(db: Executor, row: UserRow): Promise<void> {
  return createUsersStore(db).insert(row);
}

/** Whole users rows in bulk (the demo seed), in statements of at most 1,000 rows. */
export function insertUserRows(db: Executor, rows: readonly UserRow[]): Promise<void> {
  return createUsersStore(db).insertMany(rows);
}

/** Points the user at their new avatar, in the transaction that writes the avatar's row. */
export function pointUserAtAvatar(db: Executor, userId: string, avatarId: string, now: number): Promise<void> {
  return createUsersStore(db).update(userId, { avatar: avatarId }, now);
}

/** Every column of a profile that names or describes the person, emptied. */
const BLANK_PROFILE: UserChanges = {
  display_name: null,
  username: null,
  password_hash: null,
  firstname: null,
  lastname: null,
  email: null,
  position: null,
  status: null,
  metadata: '{}',
  extras: '{}',
  avatar: null,
};

/**
 * An erasure empties the user's profile in place, in its first transaction `trx`, so that what its
 * later steps write names the user by id only; the row itself goes at its end (deleteUserRow).
 */
export function blankUserProfile(trx: Executor, userId: string, now: number): Promise<void> {
  return createUsersStore(trx).update(userId, BLANK_PROFILE, now);
}

/**
 * An erasure withdraws the flags the user raised on other users, up to `limit` in the caller's
 * transaction `trx`, each target's flag count lowered with its flag; answers how many went.
 */
export function withdrawUserFlagsBy(trx: Executor, flaggerId: string, limit: number): Promise<number> {
  return createUsersStore(trx).withdrawFlagsBy(flaggerId, limit);
}

/** An erasure deletes the users row last, in its closing transaction `trx`; the schema's cascades take the rest. */
export function deleteUserRow(trx: Executor, userId: string): Promise<void> {
  return createUsersStore(trx).delete(userId);
}
