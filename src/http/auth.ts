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

/** What each kind of token is called, and the surface that takes it. */
const TOKEN_KINDS: Record<TokenKind, { name: string; surface: string; how: string }> = {
  admin: {
    name: 'an admin token',
    surface: 'the admin API',
    how: 'an admin token (PARLEY_ADMIN_TOKEN or `parley admin-token create`) or the token of a sign-in to the console at /console',
  },
  user: { name: 'a user access token', surface: 'the client API, the stream and the notification tray', how: 'a user access token' },
  bot: { name: 'a bot token', surface: 'the bot API', how: 'a bot token (the client_credentials grant at /oauth/token)' },
};

/**
 * The 403 for a live token of another kind, naming the surface and the token it takes ("An admin token
 * cannot be used on the client API, ...: use a user access token, sent as Authorization: Bearer <token>.").
 * `surface` and `sendAs` say it for a surface the accepted kinds do not name alone (the stream).
 */
export function wrongTokenKind(kind: TokenKind, accepted: readonly TokenKind[], surface?: string, sendAs = 'Authorization: Bearer <token>'): AppError {
  const presented = TOKEN_KINDS[kind].name;
  const where = surface ?? accepted.map((one) => TOKEN_KINDS[one].surface).join(' or ');
  const wanted = accepted.map((one) => TOKEN_KINDS[one].how).join(' or ');
  const sentence = `${presented.charAt(0).toUpperCase()}${presented.slice(1)} cannot be used on ${where}: use ${wanted}, sent as ${sendAs}.`;
  return new AppError('forbidden', sentence);
}

/** Admits a token of another kind after all (the admin API's console sign-ins), or throws its refusal. */
export type AdmitOther = (request: FastifyRequest, principal: Principal) => Promise<void>;

/**
 * An onRequest hook that admits only tokens of the given kinds: none or unknown is 401 / 400100, a live
 * token of another kind is 403 / 400300 unless `admitOther` admits it. Callback-style: an admin token
 * seen in the last seconds is answered from the cache without a promise, so the admin API's requests
 * run on without the promise and microtask hop an async hook costs on every request.
 */
export function requireToken(tokens: TokensService, kinds: readonly TokenKind[], admitOther?: AdmitOther) {
  /** Undefined when admitted at once; a promise when `admitOther` decides. */
  const admit = (request: FastifyRequest, principal: Principal | null): Promise<void> | undefined => {
    if (principal === null) throw new AppError('unauthorized', 'Token is invalid or expired.');
    if (kinds.includes(principal.kind)) {
      request.principal = principal;
      return undefined;
    }
    if (admitOther) return admitOther(request, principal);
    throw wrongTokenKind(principal.kind, kinds);
  };
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    const token = bearerTokenOf(request);
    if (token === null) return done(new AppError('unauthorized', 'Missing bearer token.'));
    const finish = (principal: Principal | null): void => {
      let pending: Promise<void> | undefined;
      try {
        pending = admit(request, principal);
      } catch (error) {
        return done(error as Error);
      }
      if (pending === undefined) return done();
      pending.then(
        () => done(),
        (error: unknown) => done(error as Error),
      );
    };
    let cached: Principal | undefined;
    try {
      cached = tokens.resolveCached(token);
    } catch (error) {
      return done(error as Error);
    }
    if (cached !== undefined) return finish(cached);
    tokens.resolve(token).then(finish, (error: unknown) => done(error as Error));
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
  /** `where` names the surface and how it takes the token, for the stream's own wording. */
  return async function authenticateEndUser(token: string | null, where?: { surface: string; sendAs: string }): Promise<Principal> {
    if (token === null) throw new AppError('unauthorized', 'Missing bearer token.');
    const principal = await tokens.resolve(token);
    if (principal === null) throw new AppError('unauthorized', 'Token is invalid or expired.');
    if (!kinds.includes(principal.kind)) throw wrongTokenKind(principal.kind, kinds, where?.surface, where?.sendAs);
    if (await isGloballyBanned(principal.userId)) throw new AppError('globallyBanned');
    return principal;
  };
}

export type EndUserAuthenticator = ReturnType<typeof createEndUserAuthenticator>;
