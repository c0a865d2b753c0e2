import { randomBytes } from 'node:crypto';
import type { Executor } from './database.js';
import { newObjectId } from './ids.js';

/**
 * The settings table is a key-value store of server-wide values that several modules keep (keys, versions,
 * run claims). This file is its store: the other modules write their keys through these functions.
 */

/** Writes the key with this value unless it exists; an existing value stays. */
export async function ensureSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

/** Replaces the value of an existing key; a missing key stays missing. */
export async function writeSetting(db: Executor, key: string, value: string): Promise<void> {
  await db.updateTable('settings').set({ value }).where('key', '=', key).execute();
}

/** Writes the key with this value, replacing any value it had. */
export async function putSetting(db: Executor, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * A server-wide value kept in the database, so every instance on one database reads the same one.
 * Created once; a race between two first starts keeps whichever insert won.
 */
export async function loadOrCreateSetting(db: Executor, key: string, create: () => string): Promise<string> {
  await ensureSetting(db, key, create());
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}

/**
 * The deployment's network id (userinfo's `nid` and `networkId`, tray records' `networkId`) when
 * PARLEY_NETWORK_ID does not set one: an object id made once per database.
 */
export function loadOrCreateNetworkId(db: Executor, now: number): Promise<string> {
  return loadOrCreateSetting(db, 'network_id', () => newObjectId(now));
}

/** A server-wide secret (every instance on one database signs page tokens alike). */
export function loadOrCreateSecret(db: Executor, key: string): Promise<string> {
  return loadOrCreateSetting(db, key, () => randomBytes(32).toString('base64url'));
}
