import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError, notFound } from '../../http/errors.js';
import { Id, StringEnum } from '../../http/schemas.js';
import type { TypedApp } from '../../http/typed-app.js';
import { forEachPart } from '../../modules/messages/multipart.js';
import type { TokensService } from '../../modules/tokens/tokens.service.js';
import { presentUser } from '../../modules/users/users.present.js';
import type { UsersStore } from '../../modules/users/users.store.js';
import type { AvatarsService } from '../../modules/identity/avatars.service.js';
import { presentClient } from '../../modules/identity/clients.present.js';
import type { ClientsService } from '../../modules/identity/clients.service.js';

const UserIdParams = Type.Object({ userId: Id() });
const ClientIdParams = Type.Object({ clientId: Id() });

/** The one `file` part of a multipart upload, in memory (at most the configured upload limit). */
async function uploadedFile(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw new AppError('badRequest', 'Expected a multipart/form-data body with the image in "file".');
  let image: Buffer | null = null;
  await forEachPart(request, { files: 1, fields: 20 }, async (part) => {
    if (part.type !== 'file') return true;
    if (part.fieldname !== 'file') {
      part.file.resume();
      throw new AppError('badRequest', `Unexpected file field "${part.fieldname}"; send the image as "file".`);
    }
    const data = await part.toBuffer();
    if (data.length === 0) return true;
    image = data;
    return false;
  });
  if (image !== null) return image;
  throw new AppError('parameters', 'body.file is required.', { detail: [{ field: 'body.file', message: 'must be a non-empty image file' }] });
}

/**
 * Operator endpoints of sign-in (API-CONVENTIONS.md section 6), inside the admin-token plugin:
 * minted user tokens, avatars, OAuth clients and bots.
 */
export function registerIdentityAdminRoutes(
  app: TypedApp,
  deps: { clients: ClientsService; avatars: AvatarsService; tokens: TokensService; users: UsersStore },
): void {
  const { clients } = deps;

  app.post(
    '/users/:userId/tokens',
    {
      // The body is optional: no body at all means the defaults.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['users'],
        summary: 'Mint an access token for a user',
        params: UserIdParams,
        body: Type.Object({ expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 365 * 24 * 3600, description: 'Seconds; default 3600' })) }),
      },
    },
    async (request) => {
      const user = await deps.users.findById(request.params.userId);
      if (!user) throw notFound('User');
      if (user.kind !== 'user' && user.kind !== 'bot') throw new AppError('badRequest', 'Tokens are minted for users and bots, not admin accounts.');
      if (user.is_global_ban === 1) throw new AppError('globallyBanned');
      const expiresIn = request.body.expiresIn ?? 3600;
      const issued = await deps.tokens.issue({ kind: user.kind === 'bot' ? 'bot' : 'user', userId: user.id, expiresInMs: expiresIn * 1000 });
      return { accessToken: issued.token, expiresIn };
    },
  );

  app.put(
    '/users/:userId/avatar',
    { schema: { tags: ['users'], summary: "Set a user's avatar (multipart: file)", consumes: ['multipart/form-data'], params: UserIdParams } },
    async (request) => presentUser(await deps.avatars.setAvatar(request.params.userId, await uploadedFile(request))),
  );

  const clientTag = { tags: ['oauth clients'] };

  app.post(
    '/oauth/clients',
    {
      schema: {
        ...clientTag,
        summary: 'Register an OAuth / OpenID Connect client; the secret is shown once',
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200 }),
          redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 20 }),
          grantTypes: Type.Optional(Type.Array(StringEnum(['authorization_code', 'refresh_token']), { maxItems: 2 })),
          public: Type.Optional(Type.Boolean({ description: 'A public client (no secret; PKCE required; RS256 ID tokens)' })),
          idTokenSignedResponseAlg: Type.Optional(StringEnum(['HS256', 'RS256'], 'HS256 (keyed with the client secret, default) or RS256 (/oauth/jwks)')),
        }),
      },
    },
    async (request) => {
      const { row, secret } = await clients.create(request.body);
      return { ...presentClient(row), clientSecret: secret };
    },
  );

  app.get('/oauth/clients', { schema: { ...clientTag, summary: 'List OAuth clients (never their secrets)' } }, async () => ({
    clients: (await clients.list()).map(presentClient),
  }));

  app.get('/oauth/clients/:clientId', { schema: { ...clientTag, summary: 'One OAuth client', params: ClientIdParams } }, async (request) =>
    presentClient(await clients.get(request.params.clientId)),
  );

  app.delete(
    '/oauth/clients/:clientId',
    { schema: { ...clientTag, summary: 'Delete an OAuth client and revoke its tokens', params: ClientIdParams } },
    async (request) => {
      await clients.remove(request.params.clientId);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/bots',
    {
      schema: {
        tags: ['bots'],
        summary: 'Create a bot user with client credentials (token: grant_type=client_credentials&scope=bot)',
        body: Type.Object({
          displayName: Type.String({ minLength: 1, maxLength: 200 }),
          webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
        }),
      },
    },
    async (request) => {
      const bot = await clients.createBot(request.body);
      return { userId: bot.userId, clientId: bot.row.client_id, clientSecret: bot.secret, displayName: request.body.displayName, webhookUrl: request.body.webhookUrl ?? null };
    },
  );

  app.put(
    '/bots/:userId',
    {
      schema: {
        tags: ['bots'],
        summary: "Change a bot's webhook URL (null: no webhooks); pending deliveries go to the new one",
        params: UserIdParams,
        body: Type.Object({ webhookUrl: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()]) }),
      },
    },
    async (request) => clients.setBotWebhook(request.params.userId, request.body.webhookUrl),
  );
}
