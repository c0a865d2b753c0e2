import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../clock.js';
import { oauthDescription } from '../../../shared/errors.js';
import type { Executor } from '../../../storage/database.js';
import { newObjectId } from '../../../storage/ids.js';
import { hashToken } from '../../tokens/tokens.service.js';
import type { UserRow } from '../../users/users.types.js';
import type { ClientsService, OAuthClient } from '../clients.service.js';
import { createGrantsStore } from '../grants.store.js';
import { signsIn } from '../login.service.js';
import type { SessionRow } from '../sessions.store.js';
import type { FindUser } from '../token/signin-user.js';
import { type AuthorizationParameters, normalizedQuery } from './parameters.js';
import {
  AuthorizeError,
  type AuthorizeRequest,
  type AuthorizeStep,
  checkClient,
  checkIdTokenHint,
  checkMaxAge,
  checkNoRepeatedParameters,
  checkNoRequestObject,
  checkNonce,
  checkPkce,
  checkPrompt,
  checkRedirectUri,
  checkResponseType,
  checkScope,
  emptyRequest,
} from './steps.js';

/** An authorization code is good for one exchange within 60 seconds. */
export const CODE_TTL_MS = 60_000;

export type AuthorizeOutcome =
  /** To the client's redirect_uri, with a code or an error. */
  | { kind: 'redirect'; location: string }
  /** The user must sign in first; `query` is the request to continue with afterwards. */
  | { kind: 'login'; query: string; client: OAuthClient; loginHint: string | null }
  /** A request whose redirect target cannot be trusted: an error page, never a redirect. */
  | { kind: 'page'; error: string; message: string };

/** Appends parameters to a redirect URI, keeping its own query exactly as registered. */
export function withParameters(uri: string, parameters: Record<string, string | null>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== null) query.set(name, value);
  return `${uri}${uri.includes('?') ? '&' : '?'}${query.toString()}`;
}

export function createAuthorizeService(deps: {
  db: Executor;
  clock: Clock;
  issuer: string;
  clients: ClientsService;
  findUser: FindUser;
  afterWrite?: () => void;
}) {
  const { db, clock, issuer } = deps;
  const grants = createGrantsStore(db);

  // The contract's order (docs/contract.md, Sign-in), after the session cookie: client and redirect_uri (never redirected), then the rest.
  const steps: AuthorizeStep[] = [
    checkClient((clientId) => deps.clients.find(clientId)),
    checkRedirectUri,
    checkNoRequestObject,
    checkNoRepeatedParameters,
    checkResponseType,
    checkScope,
    checkPkce,
    checkNonce,
    checkPrompt,
    checkMaxAge,
    checkIdTokenHint(issuer),
  ];

  /** The session's user, if they may still sign in: a person (not a bot) who is not banned. */
  async function userOf(session: SessionRow | null): Promise<UserRow | null> {
    if (session === null) return null;
    const user = await deps.findUser(session.user_id);
    return user && signsIn(user) && user.is_global_ban === 0 ? user : null;
  }

  function needsLogin(request: AuthorizeRequest, session: SessionRow, justAuthenticated: boolean): boolean {
    // The client expects another user than the session's: they must sign in as that user, even
    // just after signing in as someone else.
    if (request.hintedSubject !== null && request.hintedSubject !== session.user_id) return true;
    if (justAuthenticated) return false;
    // select_account and consent are asked on the login page, which names the client: the user
    // picks the account by signing in, and consents by doing it for this client.
    if (request.prompt.has('login') || request.prompt.has('select_account') || request.prompt.has('consent')) return true;
    return request.maxAgeSeconds !== null && clock.now() - session.auth_time > request.maxAgeSeconds * 1000;
  }

  async function issueCode(request: AuthorizeRequest, client: OAuthClient, redirectUri: string, session: SessionRow): Promise<string> {
    const now = clock.now();
    const code = randomBytes(32).toString('base64url');
    await grants.insertCode({
      code_hash: hashToken(code),
      id: newObjectId(now),
      client_id: client.clientId,
      user_id: session.user_id,
      redirect_uri: redirectUri,
      scope: request.scopes.join(' '),
      nonce: request.nonce,
      code_challenge: request.codeChallenge,
      auth_time: session.auth_time,
      // auth_time goes in the ID token when the request asked about the sign-in's age.
      include_auth_time: request.maxAgeSeconds !== null || request.prompt.has('login') ? 1 : 0,
      expires_at: now + CODE_TTL_MS,
      used_at: null,
      created_at: now,
    });
    deps.afterWrite?.();
    return code;
  }

  return {
    /**
     * Runs every step, then either redirects with a code, asks for a sign-in, or reports an error.
     * `justAuthenticated`: the user has just typed their password for this very request, which
     * satisfies prompt=login and max_age.
     */
    async authorize(params: AuthorizationParameters, session: SessionRow | null, options: { justAuthenticated?: boolean } = {}): Promise<AuthorizeOutcome> {
      const request = emptyRequest(params);
      try {
        for (const step of steps) await step(request);
      } catch (error) {
        if (!(error instanceof AuthorizeError)) throw error;
        if (!error.redirectable || request.redirectUri === null) return { kind: 'page', error: error.error, message: error.message };
        const location = withParameters(request.redirectUri, {
          error: error.error,
          error_description: oauthDescription(error.message),
          state: request.state,
          iss: issuer,
        });
        return { kind: 'redirect', location };
      }
      const client = request.client as OAuthClient;
      const redirectUri = request.redirectUri as string;
      const user = await userOf(session);
      // Just signed in, as someone other than the user the client named: asking again cannot help.
      if (options.justAuthenticated === true && session !== null && request.hintedSubject !== null && request.hintedSubject !== session.user_id) {
        const location = withParameters(redirectUri, {
          error: 'login_required',
          error_description: 'The user who signed in is not the one the client asked for.',
          state: request.state,
          iss: issuer,
        });
        return { kind: 'redirect', location };
      }
      if (session === null || user === null || needsLogin(request, session, options.justAuthenticated === true)) {
        if (request.prompt.has('none')) {
          const location = withParameters(redirectUri, {
            error: 'login_required',
            error_description: 'The user is not signed in.',
            state: request.state,
            iss: issuer,
          });
          return { kind: 'redirect', location };
        }
        return { kind: 'login', query: normalizedQuery(params, redirectUri), client, loginHint: params.get('login_hint') };
      }
      const code = await issueCode(request, client, redirectUri, session);
      return { kind: 'redirect', location: withParameters(redirectUri, { code, state: request.state, iss: issuer }) };
    },
  };
}

export type AuthorizeService = ReturnType<typeof createAuthorizeService>;
