import { api, call } from '../../api/client.js';
import { keysetPages } from '../../api/keyset.js';
import type { AuditEntry } from '../../api/types.js';
import { csvOf } from './csv.js';

/** The audit screen's filters, as typed: empty fields filter nothing. Times are the inputs' local times. */
export interface AuditFilters {
  actor: string;
  target: string;
  operation: string;
  from: string;
  to: string;
}

export const NO_AUDIT_FILTERS: AuditFilters = { actor: '', target: '', operation: '', from: '', to: '' };

/** A datetime-local value (the reader's time zone) as ISO 8601; undefined for none or a value that is no time. */
function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** GET /api/v2/audit's query for the filters, a page size and a page token. */
function queryOf(filters: AuditFilters, limit: number, pageToken: string | null) {
  const query: { limit: number; actor?: string; target?: string; operation?: string; from?: string; to?: string; pageToken?: string } = { limit };
  if (filters.actor.trim() !== '') query.actor = filters.actor.trim();
  if (filters.target.trim() !== '') query.target = filters.target.trim();
  if (filters.operation.trim() !== '') query.operation = filters.operation.trim();
  const from = isoOf(filters.from);
  const to = isoOf(filters.to);
  if (from !== undefined) query.from = from;
  if (to !== undefined) query.to = to;
  if (pageToken !== null) query.pageToken = pageToken;
  return query;
}

async function auditPage(filters: AuditFilters, limit: number, pageToken: string | null) {
  const answer = await call(api.GET('/api/v2/audit', { params: { query: queryOf(filters, limit, pageToken) } }));
  return { items: answer.entries, next: answer.paging.next };
}

/** The filtered audit trail, newest first, a page at a time. */
export const filteredAuditPages = (filters: AuditFilters) => keysetPages(['audit', 'screen', filters], (pageToken) => auditPage(filters, 50, pageToken));

/** The most entries an export holds; the rest of a longer trail is left out, and the export says so. */
export const EXPORT_LIMIT = 10_000;

const HEADER = [
  'at',
  'actorType',
  'actorName',
  'actorUserId',
  'operation',
  'method',
  'route',
  'targetIds',
  'targetFields',
  'status',
  'success',
  'errorCode',
  'requestId',
];

const rowOf = (entry: AuditEntry) => [
  entry.at,
  entry.actor.type,
  entry.actor.name,
  entry.actor.userId,
  entry.operation,
  entry.method,
  entry.route,
  entry.targets.map((target) => target.id).join(' '),
  entry.targets.map((target) => target.field).join(' '),
  entry.status,
  entry.success,
  entry.errorCode,
  entry.requestId,
];

/**
 * Every entry the filters select, read page by page (100 at a time) up to EXPORT_LIMIT, as CSV.
 * `onProgress` hears how many entries are read so far.
 */
export async function exportAudit(filters: AuditFilters, onProgress: (read: number) => void): Promise<{ csv: string; rows: number; cut: boolean }> {
  const entries: AuditEntry[] = [];
  let token: string | null = null;
  let cut = false;
  do {
    const page: { items: AuditEntry[]; next: string | null } = await auditPage(filters, 100, token);
    entries.push(...page.items);
    token = page.next;
    onProgress(entries.length);
    if (entries.length >= EXPORT_LIMIT) {
      cut = token !== null || entries.length > EXPORT_LIMIT;
      break;
    }
  } while (token !== null);
  const kept = entries.slice(0, EXPORT_LIMIT);
  return { csv: csvOf(HEADER, kept.map(rowOf)), rows: kept.length, cut };
}
