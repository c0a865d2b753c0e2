import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Executor } from '../../storage/database.js';
import { ensureSetting } from '../../storage/settings.js';
import type { Sealer } from './server-key.js';

export interface RsaSigningKey {
  kid: string;
  privateKey: KeyObject;
  /** The public half as published at /oauth/jwks. */
  publicJwk: JWK;
}

const SETTING = 'oidc_rs256_key';

/**
 * The server's RS256 key pair, for clients that ask for RS256 ID tokens (public clients always do).
 * Made once and kept in the settings table, sealed under the server key, so every instance on one
 * database signs with the same key; two first starts keep whichever insert won.
 */
export async function loadOrCreateRsaKey(db: Executor, sealer: Sealer): Promise<RsaSigningKey> {
  const existing = await db.selectFrom('settings').select('value').where('key', '=', SETTING).executeTakeFirst();
  if (!existing) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await ensureSetting(db, SETTING, sealer.seal(pem, SETTING));
  }
  const row = await db.selectFrom('settings').select('value').where('key', '=', SETTING).executeTakeFirstOrThrow();
  const privateKey = createPrivateKey(sealer.open(row.value, SETTING));
  const exported = createPublicKey(privateKey).export({ format: 'jwk' });
  const base: JWK = { kty: 'RSA', n: String(exported.n), e: String(exported.e) };
  const kid = await calculateJwkThumbprint(base, 'sha256');
  return { kid, privateKey, publicJwk: { ...base, kid, alg: 'RS256', use: 'sig' } };
}
