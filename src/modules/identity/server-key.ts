import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Executor } from '../../storage/database.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../../storage/file-modes.js';
import { ensureSetting } from '../../storage/settings.js';

/**
 * The server key: 32 bytes that encrypt secrets at rest (OAuth client secrets, which must be read
 * back to key HS256 ID tokens, and the RS256 private key). It comes from PARLEY_SECRET_KEY, or from
 * DATA_DIR/secret.key, written with mode 0600 on the first start that the database accepts.
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

/** The server key is missing or is not the one the database was set up with; the message says what to do. */
export class ServerKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerKeyError';
  }
}

function deriveKey(material: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, 'parley', info, 32));
}

/**
 * A key made for a DATA_DIR without a key file. It is written by checkServerKey, and only once the
 * database accepts it: a start refused because the key file went missing must not leave a new, wrong
 * key file behind.
 */
interface UnwrittenKey {
  file: string;
  dataDir: string;
  material: Buffer;
}

const unwrittenMaterial = new WeakMap<Buffer, UnwrittenKey>();

/** The key file's text, or null when there is none; a short one is refused. */
function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, PRIVATE_FILE_MODE);
  if (text.length < 32)
    throw new ServerKeyError(`${file} is shorter than 32 characters: restore it from a backup, or remove it only if nothing was encrypted with it yet`);
  return Buffer.from(text, 'utf8');
}

function keyFromDataDir(dataDir: string): Buffer {
  const file = path.join(dataDir, KEY_FILE);
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  const material = Buffer.from(randomBytes(32).toString('base64url'), 'utf8');
  unwrittenMaterial.set(material, { file, dataDir, material });
  return material;
}

/**
 * PARLEY_SECRET_KEY, else DATA_DIR/secret.key. When that file does not exist, a new key is made but
 * not yet written: checkServerKey writes it (mode 0600) once the database accepts it.
 */
export function loadServerKeyMaterial(options: { secretKey: string | null; dataDir: string }): Buffer {
  return options.secretKey !== null ? Buffer.from(options.secretKey, 'utf8') : keyFromDataDir(options.dataDir);
}

/** A sealer whose key is not written yet, and how to switch it to the key another process wrote first. */
interface PendingSealer {
  key: UnwrittenKey;
  rekey(material: Buffer): void;
}

const pendingSealers = new WeakMap<Sealer, PendingSealer>();

export function createSealer(material: Buffer): Sealer {
  let encryptionKey = deriveKey(material, 'parley seal v1');
  let macKey = deriveKey(material, 'parley mac v1');
  const sealer: Sealer = {
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
  const unwritten = unwrittenMaterial.get(material);
  if (unwritten !== undefined) {
    const rekey = (next: Buffer): void => {
      encryptionKey = deriveKey(next, 'parley seal v1');
      macKey = deriveKey(next, 'parley mac v1');
    };
    pendingSealers.set(sealer, { key: unwritten, rekey });
  }
  return sealer;
}

const SETTING = 'server_key_check';

async function storedCheck(db: Executor): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', SETTING).executeTakeFirst();
  return row?.value;
}

/**
 * Writes a pending key file, unless the database says it must not: it was set up with a key, and this
 * DATA_DIR has lost it. Another process on the same DATA_DIR may write the file first (several
 * instances starting at once): then its key is taken, so they all agree. Answers whether this call
 * created the file. The file is written before the database records the key, so a process that finds
 * the key recorded finds the file too.
 */
async function writePendingKey(db: Executor, pending: PendingSealer): Promise<boolean> {
  const { file, dataDir, material } = pending.key;
  const written = readKeyFile(file);
  if (written !== null) {
    pending.rekey(written);
    return false;
  }
  if ((await storedCheck(db)) !== undefined) {
    throw new ServerKeyError(
      `${file} is missing, and this database was set up with a server key: restore secret.key from a backup of DATA_DIR, or set PARLEY_SECRET_KEY to that key (no key file was written)`,
    );
  }
  ensurePrivateDir(dataDir);
  try {
    fs.writeFileSync(file, material, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    pending.rekey(readKeyFile(file) ?? material);
    return false;
  }
}

/**
 * Refuses to start with a key other than the one this database was set up with: otherwise every
 * client secret would fail to decrypt at the first sign-in, far from the cause. A key made for a
 * DATA_DIR without a key file is written here, after the checks (see writePendingKey).
 */
export async function checkServerKey(db: Executor, sealer: Sealer): Promise<void> {
  const pending = pendingSealers.get(sealer);
  const created = pending !== undefined && (await writePendingKey(db, pending));
  if (pending !== undefined) pendingSealers.delete(sealer);
  const check = sealer.mac('key-check', 'parley').toString('base64url');
  await ensureSetting(db, SETTING, check);
  const stored = Buffer.from((await storedCheck(db)) ?? '', 'utf8');
  const expected = Buffer.from(check, 'utf8');
  if (stored.length !== expected.length || !timingSafeEqual(stored, expected)) {
    // A key file made by this call for a database that turned out to have another key is not kept.
    if (created && pending !== undefined) fs.rmSync(pending.key.file, { force: true });
    throw new ServerKeyError(
      'the server key does not match the one this database was set up with: give every instance the same PARLEY_SECRET_KEY, or restore DATA_DIR/secret.key from the first instance',
    );
  }
}
