import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../../storage/database.js';

/**
 * The server key: 32 bytes that encrypt secrets at rest (OAuth client secrets, which must be read
 * back to key HS256 ID tokens, and the RS256 private key). It comes from PARLEY_SECRET_KEY, or from
 * DATA_DIR/secret.key, created on first start with mode 0600.
 */
export interface Sealer {
  /** AES-256-GCM; `context` (e.g. "client:<id>") is bound as associated data, so a sealed value moved to another row does not open. */
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** HMAC-SHA256 under a key derived for this purpose: CSRF tokens and the like. */
  mac(purpose: string, value: string): Buffer;
}

const KEY_FILE = 'secret.key';
const VERSION = 'v1';

function deriveKey(material: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'parley', info, 32));
}

/** Reads the key file, or creates it; two processes starting at once agree on the first one written. */
function keyFromDataDir(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`${file} is shorter than 32 characters; remove it only if nothing was encrypted with it yet.`);
  return Buffer.from(text, 'utf8');
}

export function loadServerKeyMaterial(options: { secretKey: string | null; dataDir: string }): Buffer {
  return options.secretKey !== null ? Buffer.from(options.secretKey, 'utf8') : keyFromDataDir(options.dataDir);
}

export function createSealer(material: Buffer): Sealer {
  const encryptionKey = deriveKey(material, 'parley seal v1');
  const macKey = deriveKey(material, 'parley mac v1');
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    mac(purpose, value) {
      return createHmac('sha256', macKey).update(purpose).update('\0').update(value).digest();
    },
  };
}

/**
 * Refuses to start with a key other than the one this database was set up with: otherwise every
 * client secret would fail to decrypt at the first sign-in, far from the cause.
 */
export async function checkServerKey(db: Executor, sealer: Sealer): Promise<void> {
  const check = sealer.mac('key-check', 'parley').toString('base64url');
  await db
    .insertInto('settings')
    .values({ key: 'server_key_check', value: check })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', 'server_key_check').executeTakeFirstOrThrow();
  const stored = Buffer.from(row.value, 'utf8');
  const expected = Buffer.from(check, 'utf8');
  if (stored.length !== expected.length || !timingSafeEqual(stored, expected)) {
    throw new Error(
      'The server key does not match the one this database was set up with. Give every instance the same ' +
        'PARLEY_SECRET_KEY, or restore DATA_DIR/secret.key from the first instance.',
    );
  }
}
