import { AppError, type ErrorName } from '../../shared/errors.js';

/**
 * The closed catalogue of OAuth errors (RFC 6749 sections 4.1.2.1 and 5.2, RFC 6750 section 3.1,
 * OpenID Connect Core 3.1.2.6), each tied to the project's error catalogue so the body carries
 * both `error` and `status`/`code`/`message`.
 */
const OAUTH_ERRORS = {
  invalid_request: 'badRequest',
  invalid_client: 'unauthorized',
  invalid_grant: 'badRequest',
  unauthorized_client: 'badRequest',
  unsupported_grant_type: 'badRequest',
  invalid_scope: 'badRequest',
  invalid_token: 'unauthorized',
  insufficient_scope: 'forbidden',
  // Authorization endpoint only: these travel on the redirect, never in a JSON body.
  unsupported_response_type: 'badRequest',
  access_denied: 'forbidden',
  login_required: 'unauthorized',
  request_not_supported: 'badRequest',
  request_uri_not_supported: 'badRequest',
  server_error: 'unexpected',
} as const satisfies Record<string, ErrorName>;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

export function oauthError(error: OAuthErrorCode, description: string, headers: Record<string, string> = {}): AppError {
  return new AppError(OAUTH_ERRORS[error], description, { oauthError: error, headers });
}

/** The OAuth code of an error raised anywhere below a token or userinfo handler. */
export function oauthCodeOf(error: AppError): string {
  if (error.oauthError !== undefined) return error.oauthError;
  if (error.kind === 'unauthorized') return 'invalid_token';
  if (error.kind === 'unexpected') return 'server_error';
  return 'invalid_request';
}
