import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum } from '../../shared/schemas.js';

/** Request and answer schemas of the operator's sign-in routes (docs/contract.md, Surfaces beyond the original). */

export const UserIdParams = Type.Object({ userId: Id() });
export const ClientIdParams = Type.Object({ clientId: Id() });

export const MintTokenBody = Type.Object(
  { expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 365 * 24 * 3600, description: 'Seconds; default 3600' })) },
  { examples: [{ expiresIn: 86_400 }] },
);

export const MintedToken = Type.Object(
  {
    accessToken: Type.String({ description: "A user access token (a bot's token for a bot user), for the client API, the stream and the tray" }),
    expiresIn: Type.Integer({ description: 'Seconds until it expires' }),
  },
  { description: 'A minted access token', examples: [{ accessToken: 'n5Qm0cXr8bYt2WkJ4vLh7PzD1sEa9FgU3oKi6MwNqRc', expiresIn: 86_400 }] },
);

/** The multipart fields of an avatar upload; the file part is read beside the fields (http/multipart.ts). */
export const AvatarUploadBody = Type.Object(
  {
    file: Type.Optional(
      Type.String({
        contentMediaType: 'image/*',
        description: 'Required: the image (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF), stored as JPEG or PNG at most 512 px',
      }),
    ),
  },
  { examples: [{ file: '(the image bytes)' }] },
);

export const CreateClientBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
      minItems: 1,
      maxItems: 20,
      description: 'Absolute URIs, matched exactly at sign-in',
    }),
    postLogoutRedirectUris: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
        maxItems: 20,
        description: 'Absolute URIs RP-Initiated Logout (/logout) may send the browser back to, matched exactly; none by default',
      }),
    ),
    grantTypes: Type.Optional(Type.Array(StringEnum(['authorization_code', 'refresh_token']), { maxItems: 2, description: 'Default: both' })),
    public: Type.Optional(Type.Boolean({ description: 'A public client (no secret; PKCE required; RS256 ID tokens)' })),
    idTokenSignedResponseAlg: Type.Optional(StringEnum(['HS256', 'RS256'], 'HS256 (keyed with the client secret, default) or RS256 (/oauth/jwks)')),
  },
  {
    examples: [
      {
        name: 'Support desk',
        redirectUris: ['https://desk.example.com/auth/callback'],
        postLogoutRedirectUris: ['https://desk.example.com/signed-out'],
        grantTypes: ['authorization_code', 'refresh_token'],
      },
    ],
  },
);

export const CreateBotBody = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: 200 }),
    webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: "Where the bot's events are posted (http or https)" })),
  },
  { examples: [{ displayName: 'Helpdesk bot', webhookUrl: 'https://bots.example.com/parley/hook' }] },
);

export const CreatedBot = Type.Object(
  {
    userId: Type.String({ description: "The bot's user id" }),
    clientId: Type.String({ description: 'Its client id, for grant_type=client_credentials&scope=bot' }),
    clientSecret: Type.String({ description: 'Its client secret, shown only here' }),
    displayName: Type.String(),
    webhookUrl: Nullable(Type.String(), 'Where its events are posted; null for none'),
  },
  {
    description: 'The new bot and its client credentials',
    examples: [
      {
        userId: '67d3f5a5e4b0a1c2d3e4f540',
        clientId: '67d3f5a5e4b0a1c2d3e4f541',
        clientSecret: 'Zt4Pq8Wm1Xc5Vb9Nn2Lk6Jh0Gf3Ds7Aa4Qw8Er1Ty5',
        displayName: 'Helpdesk bot',
        webhookUrl: 'https://bots.example.com/parley/hook',
      },
    ],
  },
);

export const BotWebhookBody = Type.Object(
  { webhookUrl: Nullable(Type.String({ minLength: 1, maxLength: 2000 }), 'The new URL (http or https), or null for no webhooks') },
  { examples: [{ webhookUrl: 'https://bots.example.com/parley/hook-v2' }, { webhookUrl: null }] },
);

export const BotWebhook = Type.Object(
  {
    userId: Type.String({ description: "The bot's user id" }),
    clientId: Type.String({ description: "The bot's client id" }),
    webhookUrl: Nullable(Type.String(), 'Where its events are posted; null for none'),
  },
  {
    description: "The bot's webhook setting",
    examples: [{ userId: '67d3f5a5e4b0a1c2d3e4f540', clientId: '67d3f5a5e4b0a1c2d3e4f541', webhookUrl: 'https://bots.example.com/parley/hook-v2' }],
  },
);
