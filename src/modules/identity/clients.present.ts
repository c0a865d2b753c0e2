import { iso, parseJson } from '../channels/channels.present.js';
import type { ClientRow } from './clients.store.js';

/** oauth_clients row -> the operator API's client record. The secret is shown once, at creation. */
export function presentClient(row: ClientRow) {
  return {
    clientId: row.client_id,
    name: row.name,
    redirectUris: parseJson<string[]>(row.redirect_uris, []),
    grantTypes: parseJson<string[]>(row.grant_types, []),
    public: row.is_public === 1,
    idTokenSignedResponseAlg: row.id_token_alg,
    tokenEndpointAuthMethod: row.is_public === 1 ? 'none' : 'client_secret_basic',
    botUserId: row.bot_user_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export type ClientRecord = ReturnType<typeof presentClient>;
