/** The audit trail of administrative actions. */

export interface AuditLogTable {
  /** An ObjectId-like id (storage/ids.ts), made when the entry is recorded. */
  id: string;
  /** When the action was answered (ms). */
  at: number;
  /** 'admin' (an admin token), 'user' (a user acting as moderator), 'cli' (the parley command). */
  actor_type: string;
  /** The admin token's name, the user's id, or 'cli'. */
  actor: string;
  /** The user the actor acts as (`admin-<name>` for an admin token); null for the CLI. */
  actor_user_id: string | null;
  /** A stable name such as 'channel.close', or the route pattern ('POST /api/v2/...'). */
  operation: string;
  /** The HTTP method, or 'CLI'. */
  method: string;
  /** The route pattern, e.g. '/api/v2/channel/:channelId/close', or the CLI command. */
  route: string;
  /** JSON list of [field, id] pairs: the ids the request named, never other values. */
  targets: string;
  /** The HTTP status answered (200 for an action of the CLI, which records only what it did). */
  status: number;
  /** The error code of the envelope (400301, 500000, ...); null on success. */
  error_code: number | null;
  request_id: string | null;
}

/** One row per distinct id an entry names, so entries are found by any id they name. */
export interface AuditTargetsTable {
  entry_id: string;
  target_id: string;
  /** The entry's time, repeated so a target's entries page in time order from this table's index. */
  at: number;
}
