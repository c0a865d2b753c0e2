import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sealer } from './server-key.js';

export const CSRF_COOKIE = 'parley_csrf';

/**
 * CSRF protection of the login and logout forms: a random value in an HttpOnly cookie and, in the
 * form, its HMAC under the server key. A page on another site can neither read the cookie nor
 * compute the HMAC, so it cannot forge a valid form (the cookies are SameSite=Lax besides).
 */
export function createCsrf(sealer: Sealer) {
  const tokenFor = (cookieValue: string): string => sealer.mac('csrf', cookieValue).toString('base64url');
  return {
    newCookieValue: (): string => randomBytes(24).toString('base64url'),
    tokenFor,
    verify(cookieValue: string | undefined, formToken: string | null): boolean {
      if (!cookieValue || !formToken || cookieValue.length > 100 || formToken.length > 100) return false;
      const expected = Buffer.from(tokenFor(cookieValue), 'utf8');
      const given = Buffer.from(formToken, 'utf8');
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;
