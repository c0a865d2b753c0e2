import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { bearerTokenOf } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { sendError, toAppError } from '../../http/error-handler.js';
import { StringEnum } from '../../http/schemas.js';
import { NO_EVENTS, type TypedApp } from '../../http/typed-app.js';
import type { TokensService } from '../../modules/tokens/tokens.service.js';
import type { AvatarsService } from '../../modules/identity/avatars.service.js';
import { discoveryDocument, discoveryPaths } from '../../modules/identity/discovery.js';
import { oauthCodeOf, oauthError } from '../../modules/identity/oauth-errors.js';
import type { RsaSigningKey } from '../../modules/identity/signing-keys.js';
import type { TokenService } from '../../modules/identity/token/token.service.js';
import type { FindUser } from '../../modules/identity/token/signin-user.js';
import { bearerChallenge, presentUserinfo, requireUserinfoUser } from '../../modules/identity/userinfo.js';

const tag = { tags: ['sign-in'] };

/** RFC 6749 section 5.1: token responses (and their errors) are never cached. */
const NO_STORE = { 'cache-control': 'no-cache, no-store', pragma: 'no-cache' };

/**
 * The machine side of sign-in: /oauth/token and /userinfo, whose errors carry RFC 6749 / 6750
 * `error` and `error_description` beside the envelope (API-CONVENTIONS.md section 1).
 */
export function registerOAuthApiRoutes(app: TypedApp, deps: { token: TokenService; tokens: TokensService; findUser: FindUser; networkId: string; publicUrl: string }): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.kind === 'unexpected') request.log.error({ err: error }, 'unexpected error');
    const withOAuth =
      appError.oauthError !== undefined
        ? appError
        : new AppError(appError.kind, appError.message, { headers: appError.headers, oauthError: oauthCodeOf(appError), ...(appError.detail ? { detail: appError.detail } : {}) });
    return sendError(reply, withOAuth);
  });

  app.post(
    '/oauth/token',
    {
      config: NO_EVENTS,
      // Set before the body is parsed, so the errors of parsing (a bad content type, broken JSON, a body
      // over the limit), which never reach the handler, are not cacheable either.
      onRequest: (_request, reply, done) => {
        reply.headers(NO_STORE);
        done();
      },
      schema: { ...tag, summary: 'Token endpoint: authorization_code, refresh_token, client_credentials' },
    },
    async (request) => deps.token.exchange({ contentType: request.headers['content-type'], authorization: request.headers.authorization, body: request.body }),
  );

  async function userinfo(request: FastifyRequest) {
    let token = bearerTokenOf(request);
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    // RFC 6750 section 2.2: the token may come in a form body instead of the header.
    if (request.method === 'POST' && type === 'application/x-www-form-urlencoded' && typeof request.body === 'string') {
      const inBody = new URLSearchParams(request.body).get('access_token');
      // RFC 6750 sections 2 and 3.1: one method per request; two are invalid_request (400).
      if (inBody !== null && token !== null) {
        throw oauthError('invalid_request', 'Send the access token one way only: the Authorization header or the form body.', bearerChallenge('invalid_request'));
      }
      token ??= inBody;
    }
    const principal = token === null ? null : await deps.tokens.resolve(token);
    const user = await requireUserinfoUser(principal, token !== null, deps.findUser);
    return presentUserinfo(user, {
      networkId: deps.networkId,
      avatarUrl: (avatarId) => `${deps.publicUrl}/file/view/${avatarId}?size=large`,
    });
  }
  app.get('/userinfo', { schema: { ...tag, summary: "The signed-in user's profile (Bearer access token)" } }, async (request, reply) => {
    reply.headers({ 'cache-control': 'no-store' });
    return userinfo(request);
  });
  app.post('/userinfo', { config: NO_EVENTS, schema: { ...tag, summary: "The signed-in user's profile (Bearer access token)" } }, async (request, reply) => {
    reply.headers({ 'cache-control': 'no-store' });
    return userinfo(request);
  });
}

/** Discovery, the JWKS and avatar viewing: public documents and a file, answered in the usual envelope on error. */
export function registerOAuthPublicRoutes(
  app: TypedApp,
  deps: { publicUrl: string; issuer: string; rsa: RsaSigningKey; avatars: AvatarsService; tokens: TokensService },
): void {
  const document = discoveryDocument(deps.publicUrl, deps.issuer);
  for (const path of discoveryPaths(deps.publicUrl, deps.issuer)) {
    app.get(path, { schema: { ...tag, summary: 'OpenID Provider metadata' } }, async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return document;
    });
  }
  app.get('/oauth/jwks', { schema: { ...tag, summary: 'Public keys of RS256 ID tokens' } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return { keys: [deps.rsa.publicJwk] };
  });

  app.get(
    '/file/view/:avatarId',
    {
      schema: {
        ...tag,
        summary: 'A profile picture (access token in the Bearer header or in access_token)',
        params: Type.Object({ avatarId: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9a-f]+$' }) }),
        querystring: Type.Object({
          size: Type.Optional(StringEnum(['large', 'small'])),
          access_token: Type.Optional(Type.String({ maxLength: 512 })),
        }),
      },
    },
    async (request, reply) => {
      const token = bearerTokenOf(request) ?? request.query.access_token ?? null;
      if (token === null) throw new AppError('unauthorized', 'Missing access token.', { headers: bearerChallenge(null) });
      if ((await deps.tokens.resolve(token)) === null) {
        throw new AppError('unauthorized', 'Token is invalid or expired.', { headers: bearerChallenge('invalid_token') });
      }
      const size = request.query.size ?? 'large';
      const avatar = await deps.avatars.open(request.params.avatarId, size);
      if (avatar === null) throw new AppError('notFound', 'Avatar not found.');
      reply
        .header('content-type', avatar.contentType)
        .header('x-content-type-options', 'nosniff')
        .header('etag', avatar.etag)
        .header('cache-control', 'private, max-age=3600');
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((value) => value.trim() === avatar.etag)) {
        avatar.stream.destroy();
        return reply.code(304).send();
      }
      return reply.header('content-length', avatar.size).send(avatar.stream);
    },
  );
}
