import { type Static, Type } from '@sinclair/typebox';
import { IsoTime, Nullable, StringEnum } from '../../shared/schemas.js';
import { iso, parseJson } from '../../shared/values.js';
import type { ClientRow } from './clients.store.js';

/** oauth_clients row -> the operator API's client record. The secret is shown once, at creation. */
/** The example client of the record schemas below. */
const CLIENT_EXAMPLE = {
  clientId: '67d3f5a5e4b0a1c2d3e4f530',
  name: 'Support desk',
  redirectUris: ['https://desk.example.com/auth/callback'],
  postLogoutRedirectUris: ['https://desk.example.com/signed-out'],
  grantTypes: ['authorization_code', 'refresh_token'],
  public: false,
  idTokenSignedResponseAlg: 'HS256',
  tokenEndpointAuthMethod: 'client_secret_basic',
  botUserId: null,
  createdAt: '2025-01-20T13:45:00.000Z',
  updatedAt: '2025-01-20T13:45:00.000Z',
};

export const OAuthClientRecord = Type.Object(
  {
    clientId: Type.String(),
    name: Type.String(),
    redirectUris: Type.Array(Type.String(), { description: 'The exact redirect URIs sign-in accepts for this client' }),
    postLogoutRedirectUris: Type.Array(Type.String(), {
      description: 'The exact URIs RP-Initiated Logout (/logout) may send the browser back to after signing out',
    }),
    grantTypes: Type.Array(Type.String(), { description: "'authorization_code', 'refresh_token', or 'client_credentials' for a bot's client" }),
    public: Type.Boolean({ description: 'A public client has no secret and must use PKCE' }),
    idTokenSignedResponseAlg: Type.String({ description: "'HS256' (keyed with the client secret) or 'RS256' (the server's key pair, /oauth/jwks)" }),
    tokenEndpointAuthMethod: StringEnum(
      ['none', 'client_secret_basic'],
      "'none' for a public client; otherwise HTTP Basic (form-body credentials are accepted too)",
    ),
    botUserId: Nullable(Type.String(), 'The bot user a client_credentials client acts as; null for sign-in clients'),
    createdAt: IsoTime('When the client was registered'),
    updatedAt: IsoTime('When the client last changed'),
  },
  {
    description: 'An OAuth / OpenID Connect client, without its secret',
    examples: [CLIENT_EXAMPLE],
  },
);
export type OAuthClientRecord = Static<typeof OAuthClientRecord>;

/** The answer of a client's registration: the record and, this once, its secret. */
export const OAuthClientWithSecretRecord = Type.Composite(
  [OAuthClientRecord, Type.Object({ clientSecret: Nullable(Type.String(), 'The client secret, shown only here; null for a public client') })],
  {
    description: 'A newly registered OAuth / OpenID Connect client, with its secret',
    examples: [{ ...CLIENT_EXAMPLE, clientSecret: 'q7Hc2VnX0bLr9uYk3TzWm5Pa8Ds1Ef4Gh6Jk0Lm2No4' }],
  },
);
export type OAuthClientWithSecretRecord = Static<typeof OAuthClientWithSecretRecord>;

export function presentClient(row: ClientRow): OAuthClientRecord {
  return {
    clientId: row.client_id,
    name: row.name,
    redirectUris: parseJson<string[]>(row.redirect_uris, []),
    postLogoutRedirectUris: parseJson<string[]>(row.post_logout_redirect_uris, []),
    grantTypes: parseJson<string[]>(row.grant_types, []),
    public: row.is_public === 1,
    idTokenSignedResponseAlg: row.id_token_alg,
    tokenEndpointAuthMethod: row.is_public === 1 ? 'none' : 'client_secret_basic',
    botUserId: row.bot_user_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
