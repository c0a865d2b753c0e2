/** The admin console's sign-in client: a fixed id, so the console's build can name it. */
export const CONSOLE_CLIENT_ID = 'parley-console';

/** Where the console is served, under the public URL. */
export const CONSOLE_PATH = '/console';

/** What clients.service's ensureFixedClient takes (written out here: that service imports this file). */
export interface ConsoleClient {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: true;
  idTokenSignedResponseAlg: 'RS256';
}

/**
 * The console's registration for this public URL: a public client (PKCE, no secret) that signs people
 * in at <publicUrl>/console/callback and comes back to <publicUrl>/console/ after logout. The server
 * writes it at every start, so a changed PUBLIC_URL moves it along.
 */
export function consoleClientOf(publicUrl: string): ConsoleClient {
  const base = `${publicUrl.replace(/\/+$/, '')}${CONSOLE_PATH}`;
  return {
    name: 'Parley console',
    redirectUris: [`${base}/callback`],
    postLogoutRedirectUris: [`${base}/`],
    public: true,
    idTokenSignedResponseAlg: 'RS256',
  };
}
