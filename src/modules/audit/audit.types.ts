import type { AuditLogTable } from '../../storage/schema.js';
/** Who acted: an admin token (named at write time from its id), a user acting as moderator, or the CLI. */
export type AuditActor = { type: 'admin'; tokenId: string; userId: string } | { type: 'user'; userId: string } | { type: 'cli' };

/** One id an action named, and the request field it came from. */
export interface AuditTarget {
  field: string;
  id: string;
}

/** An action as the surface saw it answered: what the recorder writes. */
export interface AuditInput {
  at: number;
  actor: AuditActor;
  operation: string;
  method: string;
  route: string;
  targets: AuditTarget[];
  status: number;
  /** The error envelope's code; null on success. */
  errorCode: number | null;
  requestId: string | null;
}

/** A stored entry, as the store reads it. */
export type AuditRow = AuditLogTable;
