/*
 * Writes the identity module makes to the tokens table, each in the transaction whose `db` it passes:
 * the access tokens its grants issue, and their revocation by a sign-out, a grant's revocation or a
 * client's delete. This file imports nothing but its store, so identity's stores can call it without
 * reaching tokens.service.ts and the modules that one depends on.
 */
export {
  type AccessTokenRow,
  deleteExpiredClientTokens,
  END_USER_TOKEN_KINDS,
  insertAccessTokenRow,
  insertAccessTokenRows,
  revokeAccessTokensOfClient,
  revokeAccessTokensOfGrant,
  revokeEndUserToken,
  revokeEndUserTokensOfUser,
} from './access-tokens.store.js';
