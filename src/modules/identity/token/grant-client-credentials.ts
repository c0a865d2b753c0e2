import type { OAuthClient } from '../clients.service.js';
import { oauthError } from '../oauth-errors.js';
import type { BotTokenResponse, TokenIssuer } from './issue-tokens.js';

/** grant_type=client_credentials&scope=bot: a bot's bearer token (docs/contract.md, Sign-in details). */
export async function grantClientCredentials(deps: { issuer: TokenIssuer }, client: OAuthClient, form: URLSearchParams): Promise<BotTokenResponse> {
  if (!client.grantTypes.includes('client_credentials') || client.botUserId === null) {
    throw oauthError('unauthorized_client', 'This client may not use the client_credentials grant; create a bot with POST /api/v2/bots.');
  }
  const scopes = (form.get('scope') ?? 'bot').split(/\s+/).filter((scope) => scope !== '');
  const unknown = scopes.filter((scope) => scope !== 'bot');
  if (unknown.length > 0) throw oauthError('invalid_scope', 'A bot may only ask for scope=bot.');
  if (client.botBanned) throw oauthError('invalid_grant', 'User is banned from the system.');
  return deps.issuer.issueBot(client, client.botUserId);
}
