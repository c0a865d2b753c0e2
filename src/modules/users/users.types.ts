import type { UsersTable } from '../../storage/schema.js';

/** A user as stored: what other modules read through the users service or their own queries. */
export type UserRow = UsersTable;

/** A flag a user received, with the flagger's display name (null when the flagger has no row). */
export interface ReceivedFlagRow {
  flagger_id: string;
  display_name: string | null;
  reason: string | null;
  created_at: number;
}
