import { api, call } from '../../api/client.js';
import type { OAuthClient } from '../../api/types.js';

/** The routes of the Apps screen: OAuth clients, bots and their webhooks, admin tokens. */

/** The console's own sign-in client: the server registers it, and the console shows it read-only. */
export const CONSOLE_CLIENT_ID = 'parley-console';

export const appKeys = {
  clients: ['apps', 'clients'] as const,
  adminTokens: ['apps', 'adminTokens'] as const,
  webhooks: (userId: string) => ['apps', 'webhooks', userId] as const,
};

export const listClients = () => call(api.GET('/api/v2/oauth/clients')).then((answer) => answer.clients);

export interface ClientDraft {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: boolean;
  refreshTokens: boolean;
}

export function createClient(draft: ClientDraft) {
  return call(
    api.POST('/api/v2/oauth/clients', {
      body: {
        name: draft.name.trim(),
        redirectUris: draft.redirectUris,
        postLogoutRedirectUris: draft.postLogoutRedirectUris,
        grantTypes: draft.refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        public: draft.public,
      },
    }),
  );
}

/** Replaces a client's redirect URIs (PUT /api/v2/oauth/clients/{clientId}) and answers the client. */
export function updateClientUris(clientId: string, uris: { redirectUris: string[]; postLogoutRedirectUris: string[] }): Promise<OAuthClient> {
  return call(api.PUT('/api/v2/oauth/clients/{clientId}', { params: { path: { clientId } }, body: uris }));
}

export const deleteClient = (clientId: string) => call(api.DELETE('/api/v2/oauth/clients/{clientId}', { params: { path: { clientId } } }));

export function createBot(displayName: string, webhookUrl: string) {
  const url = webhookUrl.trim();
  return call(api.POST('/api/v2/bots', { body: { displayName: displayName.trim(), ...(url === '' ? {} : { webhookUrl: url }) } }));
}

export function setBotWebhook(userId: string, webhookUrl: string) {
  const url = webhookUrl.trim();
  return call(api.PUT('/api/v2/bots/{userId}', { params: { path: { userId } }, body: { webhookUrl: url === '' ? null : url } }));
}

/** A bot access token minted server-side (as its client_credentials grant would give), shown once. */
export function issueBotToken(userId: string, expiresIn: number) {
  return call(api.POST('/api/v2/users/{userId}/tokens', { params: { path: { userId } }, body: { expiresIn } }));
}

export const listDeliveries = (userId: string) =>
  call(api.GET('/api/v2/bots/{userId}/webhooks', { params: { path: { userId }, query: { limit: 50 } } })).then((answer) => answer.deliveries);

export const listAdminTokens = () => call(api.GET('/api/v2/admin-tokens')).then((answer) => answer.adminTokens);

export function createAdminToken(name: string, expiresIn: number | undefined) {
  return call(api.POST('/api/v2/admin-tokens', { body: { name: name.trim(), ...(expiresIn === undefined ? {} : { expiresIn }) } }));
}

export const revokeAdminToken = (tokenId: string) => call(api.DELETE('/api/v2/admin-tokens/{tokenId}', { params: { path: { tokenId } } }));

/** The lines of a URI box: trimmed, blanks dropped. */
export const urisOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
