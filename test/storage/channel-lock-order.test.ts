import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessagesStore } from '../../src/modules/messages/messages.store.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Message batches lock channel rows in one order everywhere: the byte order of the UTF-8 ids. A batch
 * with member sends locks them with one query (lockChannels); one without locks each with its segment
 * UPDATE, in the order the batch groups its channels (the same byte order). Were the query to sort by
 * the database's collation (en-US puts `a` before `B`, bytes put `B` first), two such batches on two
 * instances could take two channels in opposite orders and deadlock.
 */
describe.runIf(testDatabases.includes('postgres'))('channel lock order on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres');
    // A linguistic collation on the ids, as a database created under en_US would have (this server's
    // default may be C, which sorts like bytes and would hide a query that orders by the collation).
    await sql`alter table channels alter column id type varchar(64) collate "en-x-icu"`.execute(t.storage.db);
  });
  afterAll(async () => {
    await t.close();
  });

  it('locks channels in the byte order of their ids, whatever the collation', async () => {
    const tag = t.uniqueId('x');
    const ids = ['a', 'B', 'b', 'Z', 'é', 'É', '_', '0', 'ü', '한'].map((prefix) => `${prefix}${tag}`);
    for (const channelId of ids) await adminClient(t).createChannel(channelId);
    const byBytes = [...ids].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
    const locked = await t.storage.db.transaction().execute((trx) => createMessagesStore(trx, 'postgres').lockChannels([...ids].reverse()));
    expect(locked.map((row) => row.id)).toEqual(byBytes);
  });
});
