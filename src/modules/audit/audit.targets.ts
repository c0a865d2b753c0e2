import type { AuditTarget } from './audit.types.js';

/**
 * The ids an action names, read from its path parameters, query string and body. Only fields named
 * here are read, and only values shaped like ids, so no password, token, text, word or other value a
 * request carries reaches the trail. A body's `ruleId` is left out: the rule update reads it as the
 * new word (docs/contract.md, Admin API); the rule's id is its path parameter.
 */
const PARAM_FIELDS = ['channelId', 'messageId', 'userId', 'ruleId', 'clientId', 'communityId', 'postId', 'commentId', 'sessionId'] as const;
const INPUT_FIELDS = ['channelId', 'messageId', 'parentId', 'referenceId', 'userId', 'clientId', 'communityId', 'postId', 'commentId'] as const;
/** Fields that hold lists of ids (a form may send one value alone). A single-id field holding a list is not read. */
const LIST_FIELDS = ['userIds', 'ruleIds', 'publicIds', 'roles'] as const;

/** As the id schema (shared/schemas.ts): 1-50 printable characters without whitespace or URL delimiters. */
const ID = /^(?!\.\.?$)[^\s/?#%\\\x00-\x1f\x7f]{1,50}$/;
/** Bounds for hostile input: a refused request may carry lists the schema would have cut. */
const MAX_PER_FIELD = 100;
const MAX_TARGETS = 200;

function collect(out: AuditTarget[], seen: Set<string>, field: string, value: unknown, list: boolean): void {
  const values = list && Array.isArray(value) ? value.slice(0, MAX_PER_FIELD) : [value];
  for (const item of values) {
    if (out.length >= MAX_TARGETS) return;
    if (typeof item !== 'string' || !ID.test(item)) continue;
    const key = `${field}\u0000${item}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, id: item });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The target ids of a request, path parameters first; each (field, id) once. */
export function targetsOf(params: unknown, query: unknown, body: unknown): AuditTarget[] {
  const out: AuditTarget[] = [];
  const seen = new Set<string>();
  if (isRecord(params)) for (const field of PARAM_FIELDS) if (Object.hasOwn(params, field)) collect(out, seen, field, params[field], false);
  for (const source of [query, body]) {
    if (!isRecord(source)) continue;
    for (const field of INPUT_FIELDS) if (Object.hasOwn(source, field)) collect(out, seen, field, source[field], false);
    for (const field of LIST_FIELDS) if (Object.hasOwn(source, field)) collect(out, seen, field, source[field], true);
  }
  return out;
}
