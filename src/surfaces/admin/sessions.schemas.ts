import { Type } from '@sinclair/typebox';
import { AccessTokenRecord, GrantRecord, LoginSessionRecord } from '../../modules/identity/credentials.present.js';
import { AdminTokenRecord } from '../../modules/tokens/admin-tokens.present.js';
import { Id, StringEnum } from '../../shared/schemas.js';

/** Request and answer schemas of the revocation routes: a user's sessions and tokens, and admin tokens. */

const first = (schema: { examples?: unknown }): unknown => (schema.examples as unknown[])[0];

export const UserSessionParams = Type.Object({ userId: Id(), sessionId: Id('The sessionId of the list') });
export const UserTokenParams = Type.Object({ userId: Id(), tokenId: Id('A tokenId or a grantId of the list') });
export const AdminTokenParams = Type.Object({ tokenId: Id("The admin token's tokenId (its name is accepted too)") });

export const CredentialsListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many of each list, newest first; default 100' })),
});

export const SessionList = Type.Object(
  { sessions: Type.Array(LoginSessionRecord, { description: 'Newest first' }) },
  { description: "The user's live login sessions, without their cookies", examples: [{ sessions: [first(LoginSessionRecord)] }] },
);

export const TokenList = Type.Object(
  {
    accessTokens: Type.Array(AccessTokenRecord, { description: 'Live access tokens, newest first' }),
    grants: Type.Array(GrantRecord, { description: 'Live grants (refresh tokens), newest first' }),
  },
  {
    description: "The user's live access tokens and grants, without the tokens",
    examples: [{ accessTokens: [first(AccessTokenRecord)], grants: [first(GrantRecord)] }],
  },
);

export const RevokedToken = Type.Object(
  {
    status: Type.Literal('success'),
    revoked: StringEnum(['accessToken', 'grant'], 'What the id named: one access token, or a grant with its refresh and access tokens'),
  },
  { description: 'The token or grant is revoked', examples: [{ status: 'success', revoked: 'grant' }] },
);

export const SignedOut = Type.Object(
  {
    status: Type.Literal('success'),
    revoked: Type.Object(
      {
        sessions: Type.Integer({ description: 'Live login sessions ended' }),
        accessTokens: Type.Integer({ description: 'Live access tokens revoked' }),
        grants: Type.Integer({ description: 'Live grants (refresh tokens) revoked' }),
      },
      { description: 'What was still live and is now revoked' },
    ),
  },
  { description: 'The user is signed out everywhere', examples: [{ status: 'success', revoked: { sessions: 2, accessTokens: 3, grants: 1 } }] },
);

export const AdminTokenList = Type.Object(
  { adminTokens: Type.Array(AdminTokenRecord, { description: 'In creation order, revoked ones included' }) },
  { description: 'Every admin token, without the tokens', examples: [{ adminTokens: [first(AdminTokenRecord)] }] },
);

export const CreateAdminTokenBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'Letters, digits, . _ -; unique among active admin tokens. The token acts as the user admin-<name>.',
    }),
    expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 10 * 365 * 24 * 3600, description: 'Seconds until it expires; default never' })),
  },
  { examples: [{ name: 'ops' }, { name: 'deploy-bot', expiresIn: 2_592_000 }] },
);

export const CreatedAdminToken = Type.Composite([AdminTokenRecord, Type.Object({ token: Type.String({ description: 'The admin token, shown only here' }) })], {
  description: 'The new admin token; the token itself is never shown again',
  examples: [{ ...(first(AdminTokenRecord) as object), lastUsedAt: null, token: '67d3f5a5e4b0a1c2d3e4f570.mI89AQ_Hu3H-hevsTVpNt6J1C6XqBWEXcVUf2HkAQII' }],
});
