import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal, TokenKind, TokensService } from '../modules/tokens/tokens.service.js';
import { AppError } from '../shared/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 6750). */
export function bearerTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * An onRequest hook that admits only tokens of the given kinds: none or unknown is 401 / 400100, a live
 * token of another kind is 403 / 400300. Callback-style: an admin token seen in the last seconds is
 * answered from the cache without a promise, so the admin API's requests run on without the promise
 * and microtask hop an async hook costs on every request.
 */
export function requireToken(tokens: TokensService, kinds: readonly TokenKind[]) {
  const admit = (request: FastifyRequest, principal: Principal | null): void => {
    if (principal === null) throw new AppError('unauthorized', 'Token is invalid or expired.');
    if (!kinds.includes(principal.kind)) throw new AppError('forbidden', `A ${principal.kind} token cannot be used here.`);
    request.principal = principal;
  };
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    const token = bearerTokenOf(request);
    if (token === null) return done(new AppError('unauthorized', 'Missing bearer token.'));
    let cached: Principal | undefined;
    try {
      cached = tokens.resolveCached(token);
      if (cached !== undefined) admit(request, cached);
    } catch (error) {
      return done(error as Error);
    }
    if (cached !== undefined) return done();
    tokens.resolve(token).then(
      (principal) => {
        try {
          admit(request, principal);
        } catch (error) {
          return done(error as Error);
        }
        done();
      },
      (error: unknown) => done(error as Error),
    );
  };
}

export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new AppError('unauthorized', 'Missing bearer token.');
  return request.principal;
}

/**
 * For end-user surfaces (client API, stream, tray): a user or bot token whose user is not globally
 * banned. A banned user's live tokens answer 403 / 400312 everywhere.
 */
export function createEndUserAuthenticator(
  tokens: TokensService,
  isGloballyBanned: (userId: string) => Promise<boolean>,
  kinds: readonly TokenKind[] = ['user'],
) {
  return async function authenticateEndUser(token: string | null): Promise<Principal> {
    if (token === null) throw new AppError('unauthorized', 'Missing bearer token.');
    const principal = await tokens.resolve(token);
    if (principal === null) throw new AppError('unauthorized', 'Token is invalid or expired.');
    if (!kinds.includes(principal.kind)) throw new AppError('forbidden', `A ${principal.kind} token cannot be used here.`);
    if (await isGloballyBanned(principal.userId)) throw new AppError('globallyBanned');
    return principal;
  };
}

export type EndUserAuthenticator = ReturnType<typeof createEndUserAuthenticator>;
