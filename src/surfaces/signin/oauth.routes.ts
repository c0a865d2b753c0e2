import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { bearerTokenOf } from '../../http/auth.js';
import { AppError } from '../../shared/errors.js';
import { sendError, toAppError } from '../../http/error-handler.js';
import { StringEnum } from '../../shared/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import type { TokensService } from '../../modules/tokens/tokens.service.js';
import type { AvatarsService } from '../../modules/identity/avatars.service.js';
import { discoveryDocument, discoveryPaths } from '../../modules/identity/discovery.js';
import { oauthCodeOf, oauthError } from '../../modules/identity/oauth-errors.js';
import type { RsaSigningKey } from '../../modules/identity/signing-keys.js';
import type { TokenService } from '../../modules/identity/token/token.service.js';
import type { FindUser } from '../../modules/identity/token/signin-user.js';
import { bearerChallenge, presentUserinfo, requireUserinfoUser } from '../../modules/identity/userinfo.js';
import { blobAnswers, sendBlob } from '../shared/send-blob.js';
import {
  DiscoveryAnswer,
  envelopeErrors,
  FORM,
  JwksAnswer,
  oauthErrors,
  readsRequestAsSent,
  TokenAnswer,
  TokenForm,
  UserinfoAnswer,
  UserinfoForm,
} from './signin.schemas.js';

const tag = { tags: ['sign-in'] };

/** RFC 6749 section 5.1: token responses (and their errors) are never cached. */
const NO_STORE = { 'cache-control': 'no-cache, no-store', pragma: 'no-cache' };

const USERINFO_ERRORS = oauthErrors({
  400: 'invalid_request: the request is malformed, or sent the token both in the header and in the form',
  401: 'invalid_token: the token is missing, unknown or expired, or its user is banned (WWW-Authenticate names the error)',
  403: 'insufficient_scope: not a user token with scope openid',
  500: 'Unexpected error',
});

/** What a public document answers besides itself: it takes no token and no input. */
const DOCUMENT_ERRORS = envelopeErrors({ 400: 'The request is malformed', 500: 'Unexpected error' });

const TOKEN_SCHEMA = {
  ...tag,
  summary: 'Token endpoint: authorization_code, refresh_token, client_credentials',
  description:
    'Exchanges an authorization code or a refresh token for tokens, or gives a bot its token (client_credentials, scope bot). The client authenticates with HTTP Basic or client_id and client_secret in the form. Errors carry RFC 6749 error and error_description beside the envelope; answers are never cached.',
  consumes: FORM,
  body: TokenForm,
  response: {
    200: TokenAnswer,
    ...oauthErrors({
      400: 'invalid_request, invalid_grant, unauthorized_client, unsupported_grant_type or invalid_scope',
      401: 'invalid_client: the client credentials are missing or wrong',
      413: 'The form is over 64 KB',
      500: 'server_error',
    }),
  },
};

const USERINFO_DESCRIPTION =
  "The profile of the access token's user (OpenID Connect Core 5.3): a user token with scope openid, or one minted by the operator. Errors carry RFC 6750 error and error_description, and WWW-Authenticate.";

const USERINFO_SCHEMA = {
  ...tag,
  summary: "The signed-in user's profile (Bearer access token)",
  description: USERINFO_DESCRIPTION,
  response: { 200: UserinfoAnswer, ...USERINFO_ERRORS },
};

const USERINFO_FORM_SCHEMA = {
  ...tag,
  summary: "The signed-in user's profile (Bearer header or access_token in a form)",
  description: `${USERINFO_DESCRIPTION} The token may come in the form instead of the header, not in both.`,
  consumes: FORM,
  body: UserinfoForm,
  response: { 200: UserinfoAnswer, ...USERINFO_ERRORS, ...oauthErrors({ 413: 'The form is over 64 KB' }) },
};

const DISCOVERY_SCHEMA = {
  ...tag,
  summary: 'OpenID Provider metadata',
  description:
    'The discovery document of OpenID Connect Discovery 1.0 and RFC 8414: endpoints, supported scopes, grants and algorithms. Public; cacheable for 5 minutes.',
  response: { 200: DiscoveryAnswer, ...DOCUMENT_ERRORS },
};

const JWKS_SCHEMA = {
  ...tag,
  summary: 'Public keys of RS256 ID tokens',
  description: 'The JSON Web Key Set that verifies RS256 ID tokens (HS256 ones are keyed with the client secret). Public; cacheable for 5 minutes.',
  response: { 200: JwksAnswer, ...DOCUMENT_ERRORS },
};

const AVATAR_SCHEMA = {
  ...tag,
  summary: 'A profile picture (access token in the Bearer header or in access_token)',
  description:
    "An avatar's image, for any live access token. size large (the default) or small. Answers 304 when If-None-Match names its ETag, 404 for an unknown avatar.",
  params: Type.Object({ avatarId: Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9a-f]+$' }) }),
  querystring: Type.Object({
    size: Type.Optional(StringEnum(['large', 'small'])),
    access_token: Type.Optional(Type.String({ maxLength: 512, description: 'The access token, for an <img> that cannot send a header' })),
  }),
  response: blobAnswers('image/*', 'The image, in its stored type (JPEG or PNG)'),
};

/**
 * The machine side of sign-in: /oauth/token and /userinfo, whose errors carry RFC 6749 / 6750
 * `error` and `error_description` beside the envelope (docs/contract.md, Errors).
 */
export function registerOAuthApiRoutes(
  app: TypedApp,
  deps: { token: TokenService; tokens: TokensService; findUser: FindUser; networkId: string; publicUrl: string },
): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.kind === 'unexpected') request.log.error({ err: error }, 'unexpected error');
    const withOAuth =
      appError.oauthError !== undefined
        ? appError
        : new AppError(appError.kind, appError.message, {
            headers: appError.headers,
            oauthError: oauthCodeOf(appError),
            ...(appError.detail ? { detail: appError.detail } : {}),
          });
    return sendError(reply, withOAuth);
  });

  app.post(
    '/oauth/token',
    {
      // Set before the body is parsed, so the errors of parsing (a bad content type, broken JSON, a body
      // over the limit), which never reach the handler, are not cacheable either.
      onRequest: (_request, reply, done) => {
        reply.headers(NO_STORE);
        done();
      },
      validatorCompiler: readsRequestAsSent,
      schema: TOKEN_SCHEMA,
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
        throw oauthError(
          'invalid_request',
          'Send the access token one way only: the Authorization header or the form body.',
          bearerChallenge('invalid_request'),
        );
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
  app.get('/userinfo', { schema: USERINFO_SCHEMA }, async (request, reply) => {
    reply.headers({ 'cache-control': 'no-store' });
    return userinfo(request);
  });
  app.post('/userinfo', { validatorCompiler: readsRequestAsSent, schema: USERINFO_FORM_SCHEMA }, async (request, reply) => {
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
    app.get(path, { schema: DISCOVERY_SCHEMA }, async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return document;
    });
  }
  const jwks = jwksOf(deps.rsa);
  app.get('/oauth/jwks', { schema: JWKS_SCHEMA }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return jwks;
  });

  app.get('/file/view/:avatarId', { schema: AVATAR_SCHEMA }, async (request, reply) => {
    const token = bearerTokenOf(request) ?? request.query.access_token ?? null;
    if (token === null) throw new AppError('unauthorized', 'Missing access token.', { headers: bearerChallenge(null) });
    if ((await deps.tokens.resolve(token)) === null) {
      throw new AppError('unauthorized', 'Token is invalid or expired.', { headers: bearerChallenge('invalid_token') });
    }
    const avatar = await deps.avatars.open(request.params.avatarId, request.query.size ?? 'large');
    if (avatar === null) throw new AppError('notFound', 'Avatar not found.');
    return sendBlob(reply, request.headers['if-none-match'], avatar);
  });
}

/** The JWKS answer, built once at start-up: the published RSA public key, every member present. */
function jwksOf(rsa: RsaSigningKey) {
  const { kty, n, e, alg, use } = rsa.publicJwk;
  if (kty !== 'RSA' || !n || !e || alg !== 'RS256' || use !== 'sig') throw new Error('The RS256 signing key is not a complete RSA public key.');
  return { keys: [{ kty: 'RSA' as const, n, e, kid: rsa.kid, alg: 'RS256' as const, use: 'sig' as const }] };
}
