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

/**
 * An audited action about to run as a command: who acts, the operation, and where the request came
 * from. The command writes the entry in its own transaction (AuditService.writeIn), which marks the
 * note written once that commits; a surface records an action whose note was not written as refused.
 */
export interface AuditNote {
  readonly actor: AuditActor;
  readonly operation: string;
  readonly method: string;
  readonly route: string;
  readonly requestId: string | null;
  written: boolean;
}
