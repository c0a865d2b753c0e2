import { randomBytes } from 'node:crypto';
import type { Executor } from './database.js';

/**
 * A server-wide secret kept in the database, so every instance on one database signs page tokens
 * alike. Created once; a race between two first starts keeps whichever insert won.
 */
export async function loadOrCreateSecret(db: Executor, key: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ key, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
