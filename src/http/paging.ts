import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Opaque page tokens: base64url of a small JSON, followed by an HMAC so that an altered token is a
 * clean 400000 "Query token is invalid" rather than a query on forged keys.
 */
export interface PageTokens {
  encode(payload: Record<string, unknown>): string;
  decode<T extends Record<string, unknown>>(token: string, check: (value: Record<string, unknown>) => value is T): T;
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
