import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { ErrorEnvelope } from '../../http/responses.js';
import { OpenObject, StringEnum } from '../../shared/schemas.js';

/**
 * The request and answer schemas of the sign-in surface (docs/contract.md, Sign-in and
 * Sign-in details). Answers are serialized through these schemas, so each lists every member its
 * producer emits: a member missing here would be dropped from the wire and break relying parties.
 */

/** Sign-in bodies are plain RFC forms (index.ts reads them as text), never JSON. */
export const FORM = ['application/x-www-form-urlencoded'];

/**
 * Validator of the routes that read their query or form as sent. Their schemas document the
 * parameters; the handlers check them in the protocol's order and answer the protocol's errors (an
 * OAuth error, a page, a redirect to the client), so Fastify checks nothing itself.
 */
export const readsRequestAsSent = () => () => true;

/**
 * A form or query the handler reads from the raw text: documented with its fields, typed as what
 * the handler is handed (the form's text).
 */
export const AsSent = <T>(schema: TObject) => Type.Unsafe<T>(schema);

const CLIENT_ID = '67d3f5a5e4b0a1c2d3e4f5a0';
const REDIRECT_URI = 'https://app.example.com/callback';

export const TokenForm = AsSent<string>(
  Type.Object(
    {
      grant_type: StringEnum(['authorization_code', 'refresh_token', 'client_credentials'] as const, 'The grant'),
      code: Type.Optional(Type.String({ description: 'authorization_code: the code from the redirect' })),
      redirect_uri: Type.Optional(Type.String({ description: 'authorization_code: the redirect_uri of the authorization request' })),
      code_verifier: Type.Optional(Type.String({ description: 'authorization_code: the PKCE verifier, when the request had a code_challenge' })),
      refresh_token: Type.Optional(Type.String({ description: 'refresh_token: the refresh token (rotated on each use)' })),
      scope: Type.Optional(Type.String({ description: 'refresh_token: a narrower scope; client_credentials: bot' })),
      client_id: Type.Optional(Type.String({ description: 'Client authentication in the body, instead of HTTP Basic' })),
      client_secret: Type.Optional(Type.String({ description: 'With client_id, instead of HTTP Basic; absent for a public client' })),
    },
    {
      description: 'A token request (RFC 6749 section 4.1.3, 6, 4.4); the client authenticates with HTTP Basic or client_id and client_secret here',
      examples: [
        { grant_type: 'authorization_code', code: 'SplxlOBeZQQYbYS6WxSbIA', redirect_uri: REDIRECT_URI },
        { grant_type: 'refresh_token', refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA' },
        { grant_type: 'client_credentials', scope: 'bot', client_id: CLIENT_ID, client_secret: 'c2VjcmV0LWZvci10aGUtc3RhbmR1cC1ib3Q' },
      ],
    },
  ),
);

export const UserinfoForm = AsSent<string>(
  Type.Object(
    { access_token: Type.Optional(Type.String({ description: 'The access token, when it is not in the Authorization header (RFC 6750 section 2.2)' })) },
    { description: 'Optional: the token may come in the Authorization header instead (never both)', examples: [{ access_token: 'mF_9.B5f-4.1JqM' }] },
  ),
);

export const TokenAnswer = Type.Object(
  {
    access_token: Type.String({ description: "Bearer token for the service's APIs" }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Lifetime of the access token in seconds (3600)' }),
    refresh_token: Type.Optional(Type.String({ description: 'Sign-in grants only; single use, a new one comes with each refresh' })),
    scope: Type.String({ description: 'The granted scope' }),
    id_token: Type.Optional(Type.String({ description: 'A JWT of the signed-in person, when the scope has openid' })),
  },
  {
    description: 'The tokens (RFC 6749 section 5.1)',
    examples: [
      {
        access_token: 'b1d5781111d84f7b3fe45a0852e59758cd7a87e5',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'tGzv3JOkF0XG5Qx2TlKWIA',
        scope: 'openid profile',
        id_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2NoYXQuZXhhbXBsZS5jb20iLCJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
      },
      { access_token: '3f8a1c9e5b7d2f4a6c8e0b1d3f5a7c9e1b3d5f7a', token_type: 'Bearer', expires_in: 3600, scope: 'bot' },
    ],
  },
);

const ISSUER = 'https://chat.example.com';
const Urls = (description: string) => Type.Array(Type.String(), { description });

export const DiscoveryAnswer = Type.Object(
  {
    issuer: Type.String({ description: 'The iss of every ID token' }),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    userinfo_endpoint: Type.String(),
    jwks_uri: Type.String({ description: 'The RS256 public keys' }),
    end_session_endpoint: Type.String({ description: 'RP-Initiated Logout: where a client sends the browser to sign out (/logout)' }),
    scopes_supported: Urls('openid, profile'),
    response_types_supported: Urls('code'),
    response_modes_supported: Urls('query'),
    grant_types_supported: Urls('authorization_code, refresh_token, client_credentials'),
    subject_types_supported: Urls('public'),
    id_token_signing_alg_values_supported: Urls('HS256 (keyed with the client secret) and RS256'),
    token_endpoint_auth_methods_supported: Urls('client_secret_basic, client_secret_post, none (public clients)'),
    code_challenge_methods_supported: Urls('S256'),
    prompt_values_supported: Urls('none, login, consent, select_account'),
    claims_supported: Urls('The claims an ID token or userinfo can carry'),
    claims_parameter_supported: Type.Boolean(),
    request_parameter_supported: Type.Boolean(),
    request_uri_parameter_supported: Type.Boolean(),
    authorization_response_iss_parameter_supported: Type.Boolean({ description: 'The redirect carries iss (RFC 9207)' }),
  },
  {
    description: 'OpenID Provider metadata (OpenID Connect Discovery 1.0, RFC 8414)',
    examples: [
      {
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/oauth/authorize`,
        token_endpoint: `${ISSUER}/oauth/token`,
        userinfo_endpoint: `${ISSUER}/userinfo`,
        jwks_uri: `${ISSUER}/oauth/jwks`,
        end_session_endpoint: `${ISSUER}/logout`,
        scopes_supported: ['openid', 'profile'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['HS256', 'RS256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        code_challenge_methods_supported: ['S256'],
        prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
        claims_supported: [
          'sub',
          'iss',
          'aud',
          'exp',
          'iat',
          'auth_time',
          'nonce',
          'name',
          'given_name',
          'family_name',
          'preferred_username',
          'email',
          'picture',
          'firstname',
          'lastname',
        ],
        claims_parameter_supported: false,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        authorization_response_iss_parameter_supported: true,
      },
    ],
  },
);

export const JwksAnswer = Type.Object(
  {
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal('RSA'),
        n: Type.String({ description: 'Modulus, base64url' }),
        e: Type.String({ description: 'Exponent, base64url' }),
        kid: Type.String({ description: 'Key id: the RFC 7638 thumbprint, named in the ID token header' }),
        alg: Type.Literal('RS256'),
        use: Type.Literal('sig'),
      }),
    ),
  },
  {
    description: 'A JSON Web Key Set (RFC 7517) of the public keys of RS256 ID tokens',
    examples: [
      {
        keys: [
          {
            kty: 'RSA',
            n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
            e: 'AQAB',
            kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
            alg: 'RS256',
            use: 'sig',
          },
        ],
      },
    ],
  },
);

export const UserinfoAnswer = Type.Object(
  {
    _id: Type.String({ description: "The user's id (the ID token's sub)" }),
    nid: Type.String({ description: 'The network id' }),
    networkId: Type.String({ description: 'The network id, as nid' }),
    network_admin: Type.String({ description: "'true' when the user administers the network, else 'false'" }),
    username: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    email: Type.String(),
    avatar: Type.String({ description: "The avatar's file id; view it at /file/view/{avatar}" }),
    position: Type.String(),
    status: Type.String(),
    extras: OpenObject("Fields of the operator's own, as set with the user"),
    sub: Type.String(),
    name: Type.Optional(Type.String({ description: 'First and last name, or the display name; absent when the user has neither' })),
    given_name: Type.Optional(Type.String({ description: 'The first name; absent when empty' })),
    family_name: Type.Optional(Type.String({ description: 'The last name; absent when empty' })),
    preferred_username: Type.Optional(Type.String({ description: 'The username; absent when the user has none' })),
    picture: Type.Optional(Type.String({ description: "The avatar's URL (size large); absent when there is none" })),
    title: Type.String({ description: "The position ('' when empty, as the original's fields)" }),
  },
  {
    description:
      "The signed-in user's profile: the original's fields, strings ('' when empty), beside the standard OpenID Connect claims, which are left out when empty (OpenID Connect Core 5.3.2)",
    examples: [
      {
        _id: '67d3f5a5e4b0a1c2d3e4f511',
        nid: 'acme',
        networkId: 'acme',
        network_admin: 'false',
        username: 'alice',
        firstname: 'Alice',
        lastname: 'Martin',
        email: 'alice@example.com',
        avatar: '67d3f5a5e4b0a1c2d3e4f521',
        position: 'Product designer',
        status: 'Working remotely',
        extras: { team: 'design' },
        sub: '67d3f5a5e4b0a1c2d3e4f511',
        name: 'Alice Martin',
        given_name: 'Alice',
        family_name: 'Martin',
        preferred_username: 'alice',
        picture: `${ISSUER}/file/view/67d3f5a5e4b0a1c2d3e4f521?size=large`,
        title: 'Product designer',
      },
    ],
  },
);

/** The error envelope as the OAuth endpoints fill it: with RFC 6749 / 6750 `error` and `error_description`. */
export const OAuthErrorEnvelope = {
  ...ErrorEnvelope,
  examples: [
    {
      status: 'error',
      code: 400000,
      message: 'The code has expired.',
      data: { detail: [] },
      error: 'invalid_grant',
      error_description: 'The code has expired.',
    },
  ],
};

const errorsOf = (envelope: TSchema, statuses: Record<number, string>): Record<number, TSchema> =>
  Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, { ...envelope, description }]));

/** The errors of /oauth/token and /userinfo: the envelope with `error` and `error_description`, under each status. */
export const oauthErrors = (statuses: Record<number, string>) => errorsOf(OAuthErrorEnvelope, statuses);

/** The errors of the public documents: the plain envelope, under each status. */
export const envelopeErrors = (statuses: Record<number, string>) => errorsOf(ErrorEnvelope, statuses);
