import { Type } from '@sinclair/typebox';
import { AppError, notFound } from '../../shared/errors.js';
import { IsoTime, Nullable } from '../../shared/schemas.js';
import { iso } from '../../shared/values.js';
import type { TypedApp } from '../../http/typed-app.js';
import { readMultipartBody, uploadOf } from '../../http/multipart.js';
import { answers, JSON_AND_FORM, SuccessAnswer } from '../../http/responses.js';
import type { TokensService } from '../../modules/tokens/tokens.service.js';
import { presentUser, UserRecord } from '../../modules/users/users.present.js';
import type { UsersService } from '../../modules/users/users.service.js';
import type { AvatarsService } from '../../modules/identity/avatars.service.js';
import { OAuthClientRecord, OAuthClientWithSecretRecord, presentClient } from '../../modules/identity/clients.present.js';
import type { ClientsService } from '../../modules/identity/clients.service.js';
import {
  AvatarUploadBody,
  BotWebhook,
  BotWebhookBody,
  ClientIdParams,
  CreateBotBody,
  CreateClientBody,
  CreatedBot,
  MintedToken,
  MintTokenBody,
  UserIdParams,
} from './identity.schemas.js';
import { moderators, networkAdmins } from './console-access.js';

const readAvatarUpload = readMultipartBody({ fileField: 'file', arrayFields: [] });

const ClientList = Type.Object(
  { clients: Type.Array(OAuthClientRecord) },
  { description: 'Every OAuth client, without secrets', examples: [{ clients: OAuthClientRecord.examples as unknown[] }] },
);

const UriList = (description: string, minItems: number) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems, maxItems: 20, description }));

const UpdateClientBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    redirectUris: UriList('Replaces the redirect URIs: absolute URIs, matched exactly at sign-in', 1),
    postLogoutRedirectUris: UriList('Replaces the URIs RP-Initiated Logout (/logout) may send the browser back to; [] for none', 0),
  },
  {
    examples: [
      {
        redirectUris: ['https://desk.example.com/auth/callback', 'https://desk-staging.example.com/auth/callback'],
        postLogoutRedirectUris: ['https://desk.example.com/signed-out'],
      },
    ],
  },
);

const BotList = Type.Object(
  {
    bots: Type.Array(
      Type.Object({
        userId: Type.String({ description: "The bot's user" }),
        clientId: Type.String({ description: 'Its client_credentials client' }),
        displayName: Type.String(),
        webhookUrl: Nullable(Type.String(), "Where the bot's events are posted; null: nowhere"),
        createdAt: IsoTime('When the bot was created'),
      }),
    ),
  },
  {
    description: 'Every bot, oldest first',
    examples: [
      {
        bots: [
          {
            userId: '67d3f5a5e4b0a1c2d3e4f530',
            clientId: 'c_5f2b8e1d9a7c4e3b',
            displayName: 'Deploy bot',
            webhookUrl: 'https://ci.example.com/parley/events',
            createdAt: '2025-02-10T09:00:00.000Z',
          },
        ],
      },
    ],
  },
);

/**
 * Operator endpoints of sign-in (docs/contract.md, Surfaces beyond the original), inside the admin-token plugin:
 * minted user tokens, avatars, OAuth clients and bots.
 */
export function registerIdentityAdminRoutes(
  app: TypedApp,
  deps: { clients: ClientsService; avatars: AvatarsService; tokens: TokensService; users: Pick<UsersService, 'findById'> },
): void {
  registerUserCredentialRoutes(app, deps);
  registerClientRoutes(app, deps.clients);
  registerBotRoutes(app, deps.clients);
}

function registerUserCredentialRoutes(app: TypedApp, deps: { avatars: AvatarsService; tokens: TokensService; users: Pick<UsersService, 'findById'> }): void {
  app.post(
    '/users/:userId/tokens',
    {
      config: { ...networkAdmins("a user's access tokens"), audit: 'user.mintToken' },
      // The body is optional: no body at all means the defaults.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['users'],
        summary: 'Mint an access token for a user',
        description:
          'Issues an access token for a user or a bot, as sign-in would. An unknown user is a 404, an admin account a 400, a globally banned user a 403.',
        consumes: JSON_AND_FORM,
        params: UserIdParams,
        body: MintTokenBody,
        response: answers(MintedToken),
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
    {
      config: { ...moderators(['EDIT_USER'], 'changing avatars', 'users'), audit: 'user.setAvatar' },
      preValidation: readAvatarUpload,
      schema: {
        tags: ['users'],
        summary: "Set a user's avatar (multipart: file)",
        description:
          "Stores the image (oriented, metadata stripped, at most 512 px) as the user's avatar, replacing the previous one, and answers the user. " +
          'A body that is not multipart or a file that is not an image is a 400; a missing file a 422; a file over the upload limit a 413.',
        consumes: ['multipart/form-data'],
        params: UserIdParams,
        body: AvatarUploadBody,
        response: answers(UserRecord, { extraErrors: [413] }),
      },
    },
    async (request) => presentUser(await deps.avatars.setAvatar(request.params.userId, uploadOf(request).data)),
  );
}

function registerClientRoutes(app: TypedApp, clients: ClientsService): void {
  const clientTag = { tags: ['oauth clients'] };

  app.post(
    '/oauth/clients',
    {
      config: { ...networkAdmins('OAuth clients'), audit: 'oauthClient.create' },
      schema: {
        ...clientTag,
        summary: 'Register an OAuth / OpenID Connect client; the secret is shown once',
        description: 'Registers a sign-in client and answers it with its secret, which is never shown again. A bad redirect URI is a 422.',
        consumes: JSON_AND_FORM,
        body: CreateClientBody,
        response: answers(OAuthClientWithSecretRecord),
      },
    },
    async (request) => {
      const { row, secret } = await clients.create(request.body);
      return { ...presentClient(row), clientSecret: secret };
    },
  );

  app.get(
    '/oauth/clients',
    {
      config: networkAdmins('OAuth clients'),
      schema: {
        ...clientTag,
        summary: 'List OAuth clients (never their secrets)',
        description: "Lists every OAuth client, bots' clients included, without their secrets.",
        response: answers(ClientList),
      },
    },
    async () => ({ clients: (await clients.list()).map(presentClient) }),
  );

  app.get(
    '/oauth/clients/:clientId',
    {
      config: networkAdmins('OAuth clients'),
      schema: {
        ...clientTag,
        summary: 'One OAuth client',
        description: 'The client, without its secret. An unknown client is a 404.',
        params: ClientIdParams,
        response: answers(OAuthClientRecord),
      },
    },
    async (request) => presentClient(await clients.get(request.params.clientId)),
  );

  app.put(
    '/oauth/clients/:clientId',
    {
      config: networkAdmins('OAuth clients'),
      schema: {
        ...clientTag,
        summary: "Change an OAuth client's name or URIs",
        description:
          'Changes the fields the body names (a list replaces the stored one) and answers the client, without its secret. URIs are checked as at registration (422). ' +
          "A bot's client takes a name only (422 for URIs). The console's own client, parley-console, is the server's to write: a 409. An unknown client is a 404.",
        consumes: JSON_AND_FORM,
        params: ClientIdParams,
        body: UpdateClientBody,
        response: answers(OAuthClientRecord, { extraErrors: [409] }),
      },
    },
    async (request) => presentClient(await clients.update(request.params.clientId, request.body)),
  );

  app.delete(
    '/oauth/clients/:clientId',
    {
      config: { ...networkAdmins('OAuth clients'), audit: 'oauthClient.delete' },
      schema: {
        ...clientTag,
        summary: 'Delete an OAuth client and revoke its tokens',
        description:
          "Deletes the client and revokes every token issued to it. An unknown client is a 404; the console's own client (parley-console) is a 409: the server registers it at every start.",
        params: ClientIdParams,
        response: answers(SuccessAnswer, { extraErrors: [409] }),
      },
    },
    async (request) => {
      await clients.remove(request.params.clientId);
      return { status: 'success' as const };
    },
  );
}

function registerBotRoutes(app: TypedApp, clients: ClientsService): void {
  app.get(
    '/bots',
    {
      config: networkAdmins('bots'),
      schema: {
        tags: ['bots'],
        summary: 'List bots',
        description: 'Lists every bot, oldest first: its user, its client, its display name and where its webhooks go (null: nowhere). Never a secret.',
        response: answers(BotList),
      },
    },
    async () => ({
      bots: (await clients.listBots()).map((bot) => ({
        userId: bot.user_id,
        clientId: bot.client_id,
        displayName: bot.display_name ?? '',
        webhookUrl: bot.webhook_url,
        createdAt: iso(bot.created_at),
      })),
    }),
  );

  app.post(
    '/bots',
    {
      config: { ...networkAdmins('bots'), audit: 'bot.create' },
      schema: {
        tags: ['bots'],
        summary: 'Create a bot user with client credentials (token: grant_type=client_credentials&scope=bot)',
        description: 'Creates a bot user and its client; the secret is shown only here. A webhook URL that is not http(s) or not allowed is a 422.',
        consumes: JSON_AND_FORM,
        body: CreateBotBody,
        response: answers(CreatedBot),
      },
    },
    async (request) => {
      const bot = await clients.createBot(request.body);
      return {
        userId: bot.userId,
        clientId: bot.row.client_id,
        clientSecret: bot.secret,
        displayName: request.body.displayName,
        webhookUrl: request.body.webhookUrl ?? null,
      };
    },
  );

  app.put(
    '/bots/:userId',
    {
      config: { ...networkAdmins('bots'), audit: 'bot.update' },
      schema: {
        tags: ['bots'],
        summary: "Change a bot's webhook URL (null: no webhooks); pending deliveries go to the new one",
        description: "Sets or removes the bot's webhook URL; deliveries still pending go to the new one. An unknown bot is a 404; a refused URL a 422.",
        consumes: JSON_AND_FORM,
        params: UserIdParams,
        body: BotWebhookBody,
        response: answers(BotWebhook),
      },
    },
    async (request) => clients.setBotWebhook(request.params.userId, request.body.webhookUrl),
  );
}
