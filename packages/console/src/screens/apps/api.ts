import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { type MutationConfig, useApiMutation } from '../../api/mutation.js';
import type { OAuthClient } from '../../api/types.js';

/** The routes of the Apps screen: OAuth clients, bots and their webhooks, admin tokens. */

/** The console's own sign-in client: the server registers it, and the console shows it read-only. */
export const CONSOLE_CLIENT_ID = 'parley-console';

export const appKeys = {
  clients: ['apps', 'clients'] as const,
  adminTokens: ['apps', 'adminTokens'] as const,
  webhooks: (userId: string) => ['apps', 'webhooks', userId] as const,
};

/** Every OAuth client, bots' included (the Bots tab lists those, the Clients tab the others). */
export const clientsQuery = () =>
  queryOptions({ queryKey: appKeys.clients, queryFn: () => call(api.GET('/api/v2/oauth/clients')).then((answer) => answer.clients) });

const refreshClients = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: appKeys.clients });

export interface ClientDraft {
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: boolean;
  refreshTokens: boolean;
}

function createClient(draft: ClientDraft) {
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

/** Creates a client; a confidential one's secret is in the answer, shown once. */
export const useCreateClient = (config: MutationConfig<Awaited<ReturnType<typeof createClient>>, ClientDraft> = {}) =>
  useApiMutation(createClient, refreshClients, config);

/** Replaces a client's redirect URIs (PUT /api/v2/oauth/clients/{clientId}) and answers the client. */
export const useUpdateClientUris = (clientId: string, config: MutationConfig<OAuthClient, { redirectUris: string[]; postLogoutRedirectUris: string[] }> = {}) =>
  useApiMutation(
    (uris: { redirectUris: string[]; postLogoutRedirectUris: string[] }): Promise<OAuthClient> =>
      call(api.PUT('/api/v2/oauth/clients/{clientId}', { params: { path: { clientId } }, body: uris })),
    refreshClients,
    config,
  );

export const useDeleteClient = () =>
  useApiMutation((clientId: string) => call(api.DELETE('/api/v2/oauth/clients/{clientId}', { params: { path: { clientId } } })), refreshClients);

export interface BotDraft {
  displayName: string;
  webhookUrl: string;
}

function createBot({ displayName, webhookUrl }: BotDraft) {
  const url = webhookUrl.trim();
  return call(api.POST('/api/v2/bots', { body: { displayName: displayName.trim(), ...(url === '' ? {} : { webhookUrl: url }) } }));
}

/** Creates a bot (a user, its client and its webhook); the client secret is in the answer, shown once. */
export const useCreateBot = (config: MutationConfig<Awaited<ReturnType<typeof createBot>>, BotDraft> = {}) => useApiMutation(createBot, refreshClients, config);

function setBotWebhook(userId: string, webhookUrl: string) {
  const url = webhookUrl.trim();
  return call(api.PUT('/api/v2/bots/{userId}', { params: { path: { userId } }, body: { webhookUrl: url === '' ? null : url } }));
}

/** Sets the bot's webhook URL ('' for none). */
export const useSetBotWebhook = (userId: string, config: MutationConfig<Awaited<ReturnType<typeof setBotWebhook>>, string> = {}) =>
  useApiMutation((webhookUrl: string) => setBotWebhook(userId, webhookUrl), null, config);

function issueBotToken(userId: string, expiresIn: number) {
  return call(api.POST('/api/v2/users/{userId}/tokens', { params: { path: { userId } }, body: { expiresIn } }));
}

/** A bot access token minted server-side (as its client_credentials grant would give), valid `expiresIn` seconds, shown once. */
export const useIssueBotToken = (userId: string, config: MutationConfig<Awaited<ReturnType<typeof issueBotToken>>, number> = {}) =>
  useApiMutation((expiresIn: number) => issueBotToken(userId, expiresIn), null, config);

/** The bot's newest webhook deliveries. */
export const deliveriesQuery = (userId: string) =>
  queryOptions({
    queryKey: appKeys.webhooks(userId),
    queryFn: () => call(api.GET('/api/v2/bots/{userId}/webhooks', { params: { path: { userId }, query: { limit: 50 } } })).then((answer) => answer.deliveries),
  });

export const adminTokensQuery = () =>
  queryOptions({ queryKey: appKeys.adminTokens, queryFn: () => call(api.GET('/api/v2/admin-tokens')).then((answer) => answer.adminTokens) });

const refreshAdminTokens = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: appKeys.adminTokens });

function createAdminToken({ name, expiresIn }: { name: string; expiresIn: number | undefined }) {
  return call(api.POST('/api/v2/admin-tokens', { body: { name: name.trim(), ...(expiresIn === undefined ? {} : { expiresIn }) } }));
}

/** Creates an admin token (`expiresIn` undefined: it never expires); the token is in the answer, shown once. */
export const useCreateAdminToken = (
  config: MutationConfig<Awaited<ReturnType<typeof createAdminToken>>, { name: string; expiresIn: number | undefined }> = {},
) => useApiMutation(createAdminToken, refreshAdminTokens, config);

export const useRevokeAdminToken = () =>
  useApiMutation((tokenId: string) => call(api.DELETE('/api/v2/admin-tokens/{tokenId}', { params: { path: { tokenId } } })), refreshAdminTokens);

/** The lines of a URI box: trimmed, blanks dropped. */
export const urisOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
