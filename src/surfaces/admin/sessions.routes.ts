import { answers, SuccessAnswer } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { presentAccessToken, presentGrant, presentSession } from '../../modules/identity/credentials.present.js';
import type { CredentialsService } from '../../modules/identity/credentials.service.js';
import { UserIdParams } from './identity.schemas.js';
import { CredentialsListQuery, RevokedToken, SessionList, SignedOut, TokenList, UserSessionParams, UserTokenParams } from './sessions.schemas.js';
import { networkAdmins } from './console-access.js';

const tag = { tags: ['users'] };

/**
 * Revocation (admin token): a user's login sessions, access tokens and grants, listed without their
 * secrets and ended one by one or all at once. A password change and a global ban end them all too
 * (users.service.ts). What is revoked fails on every instance at once: none of it is cached.
 */
export function registerSessionRoutes(app: TypedApp, deps: { credentials: CredentialsService }): void {
  const { credentials } = deps;

  app.get(
    '/users/:userId/sessions',
    {
      config: networkAdmins("a user's sessions"),
      schema: {
        ...tag,
        summary: "List a user's login sessions",
        description:
          "Lists the user's live login sessions (browsers signed in at the sign-in pages), newest first, without their cookies. An unknown user is a 404.",
        params: UserIdParams,
        querystring: CredentialsListQuery,
        response: answers(SessionList),
      },
    },
    async (request) => ({ sessions: (await credentials.listSessions(request.params.userId, request.query.limit)).map(presentSession) }),
  );

  app.delete(
    '/users/:userId/sessions/:sessionId',
    {
      config: { ...networkAdmins("a user's sessions"), audit: 'user.revokeSession' },
      schema: {
        ...tag,
        summary: 'Revoke one login session',
        description:
          'Ends one login session: its cookie no longer signs the browser in. The apps it signed in to keep their grants (revoke those under /tokens, or sign out everywhere). An unknown user, or a session of theirs that is unknown or already ended, is a 404.',
        params: UserSessionParams,
        response: answers(SuccessAnswer),
      },
    },
    async (request) => {
      await credentials.revokeSession(request.params.userId, request.params.sessionId);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/users/:userId/signout',
    {
      config: { ...networkAdmins("a user's sessions"), audit: 'user.signOut' },
      schema: {
        ...tag,
        summary: 'Sign a user out everywhere',
        description:
          'Revokes every login session, grant (refresh token) and access token of the user, minted ones included; admin tokens are not touched. The user signs in again to get new ones; a bot gets a new token with its client credentials. Answers what was still live. An unknown user is a 404.',
        params: UserIdParams,
        response: answers(SignedOut),
      },
    },
    async (request) => ({ status: 'success' as const, revoked: await credentials.signOutEverywhere(request.params.userId) }),
  );

  app.get(
    '/users/:userId/tokens',
    {
      config: networkAdmins("a user's access tokens"),
      schema: {
        ...tag,
        summary: "List a user's access tokens and grants",
        description:
          "Lists the user's live access tokens (from sign-in, a bot's client credentials, or minted here) and grants (an app's refresh token), newest first, never the tokens themselves. An unknown user is a 404.",
        params: UserIdParams,
        querystring: CredentialsListQuery,
        response: answers(TokenList),
      },
    },
    async (request) => {
      const { accessTokens, grants } = await credentials.listTokens(request.params.userId, request.query.limit);
      return { accessTokens: accessTokens.map(presentAccessToken), grants: grants.map(presentGrant) };
    },
  );

  app.delete(
    '/users/:userId/tokens/:tokenId',
    {
      config: { ...networkAdmins("a user's access tokens"), audit: 'user.revokeToken' },
      schema: {
        ...tag,
        summary: 'Revoke one access token or grant of a user',
        description:
          "With a tokenId, revokes that access token; with a grantId, revokes the grant: its refresh token and every access token issued from it. An unknown user, or an id that names none of the user's live tokens or grants, is a 404.",
        params: UserTokenParams,
        response: answers(RevokedToken),
      },
    },
    async (request) => ({ status: 'success' as const, revoked: await credentials.revokeToken(request.params.userId, request.params.tokenId) }),
  );
}
