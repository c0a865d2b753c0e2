import type { UsersTable } from '../../storage/schema.js';

/** A user as stored: what other modules read through the users service or their own queries. */
export type UserRow = UsersTable;
