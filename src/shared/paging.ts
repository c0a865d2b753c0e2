import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Opaque page tokens: base64url of a small JSON, followed by an HMAC so that an altered token is a
 * clean 400000 "Query token is invalid" rather than a query on forged keys.
 */
export interface PageTokens {
  encode(payload: Record<string, unknown>): string;
  decode<T extends Record<string, unknown>>(token: string, check: (value: Record<string, unknown>) => value is T): T;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A short digest of a query's filters, carried in its page tokens: a token continues the query it was
 * made for: a token sent alone, or with other filters, would otherwise answer the next rows of
 * another query (tags dropped, a search widened).
 */
export function filterKey(filters: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest().subarray(0, 9).toString('base64url');
}

/** Filters up to this size (as JSON) travel in the token itself, so the token alone continues the query. */
const CARRIED_FILTERS_MAX = 512;

/** The filter fields of a token: the key, and the filters themselves when they are small. */
export function filterFields(filters: Record<string, unknown>): { f: string; q?: Record<string, unknown> } {
  const key = filterKey(filters);
  return JSON.stringify(filters).length <= CARRIED_FILTERS_MAX ? { f: key, q: filters } : { f: key };
}

/**
 * The filters a page runs with: the request's when it names any (they must be the token's), else the
 * token's own. `defaults` are the filters of a request that names none.
 */
export function filtersOfPage<T extends Record<string, unknown>>(
  requested: T,
  defaults: T,
  token: { f: unknown; q?: unknown } | null,
  isFilters: (value: unknown) => value is T,
): T {
  if (token === null) return requested;
  const requestedKey = filterKey(requested);
  if (token.f === requestedKey) return requested;
  if (requestedKey === filterKey(defaults) && isFilters(token.q) && filterKey(token.q) === token.f) return token.q;
  throw otherFiltersError();
}

/** A list of strings, as a list filter carried in a token must be. */
export const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** A sorted, de-duplicated copy of a list filter, so the order it was sent in does not matter. */
export function canonicalList(values: readonly string[] | undefined): string[] {
  return [...new Set(values ?? [])].sort();
}

export function otherFiltersError(): AppError {
  return new AppError('badRequest', 'Query token is invalid: it continues a query with other filters; send the same filters with it.');
}

function invalid(): AppError {
  return new AppError('badRequest', 'Query token is invalid.');
}

export function createPageTokens(secret: string): PageTokens {
  const sign = (body: string): Buffer => createHmac('sha256', secret).update(body).digest().subarray(0, 16);
  return {
    encode(payload) {
      const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
      return `${body}.${sign(body).toString('base64url')}`;
    },
    decode(token, check) {
      if (typeof token !== 'string' || token.length > 2048) throw invalid();
      const [body, signature, extra] = token.split('.');
      if (!body || !signature || extra !== undefined) throw invalid();
      // Node's base64url decoding skips what is not of its alphabet and ignores padding: `<token>==`,
      // `<token>!!` or a stray `*` decoded to the same bytes and passed. Only the exact encoding does.
      if (!BASE64URL.test(body) || !BASE64URL.test(signature) || Buffer.from(body, 'base64url').toString('base64url') !== body) throw invalid();
      if (Buffer.from(signature, 'base64url').toString('base64url') !== signature) throw invalid();
      const given = Buffer.from(signature, 'base64url');
      const expected = sign(body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      } catch {
        throw invalid();
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid();
      const record = value as Record<string, unknown>;
      if (!check(record)) throw invalid();
      return record;
    },
  };
}

/** The paging block every list answers: tokens for the next and previous pages, or null. */
export interface Paging {
  next: string | null;
  prev: string | null;
}
