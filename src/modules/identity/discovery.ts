/**
 * OpenID Connect Discovery 1.0 (and RFC 8414) metadata. Endpoints live under the public URL; the
 * issuer may differ (the original's SDKs expect `<base>/oauth/authorize`), in which case the same
 * document is also served under the issuer's path.
 */
export function discoveryDocument(publicUrl: string, issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${publicUrl}/oauth/authorize`,
    token_endpoint: `${publicUrl}/oauth/token`,
    userinfo_endpoint: `${publicUrl}/userinfo`,
    jwks_uri: `${publicUrl}/oauth/jwks`,
    // OpenID Connect RP-Initiated Logout 1.0: the sign-out page takes logout requests.
    end_session_endpoint: `${publicUrl}/logout`,
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
  };
}

/** The paths the discovery document answers on, relative to this server's root. */
export function discoveryPaths(publicUrl: string, issuer: string): string[] {
  const paths = new Set(['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']);
  const base = new URL(publicUrl).pathname.replace(/\/+$/, '');
  let issuerPath = new URL(issuer).pathname.replace(/\/+$/, '');
  if (base !== '' && issuerPath.startsWith(base)) issuerPath = issuerPath.slice(base.length);
  if (issuerPath !== '') {
    paths.add(`${issuerPath}/.well-known/openid-configuration`);
    // RFC 8414 section 3: the well-known segment goes before the issuer's path.
    paths.add(`/.well-known/openid-configuration${issuerPath}`);
    paths.add(`/.well-known/oauth-authorization-server${issuerPath}`);
  }
  return [...paths];
}
