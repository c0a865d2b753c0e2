import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhooksStore } from '../../../src/modules/webhooks/webhooks.store.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * The webhook consumer's joinsAfter is answered from the partial index of joins (migration 0013): on
 * the (channel_id, id) index alone it read every event of the channel from the batch to the present. A consumer that is behind (a backlog of B events in a busy channel with a bot) pays
 * O(B) per batch, O(B^2 / batch size) to catch up. Here: 20 000 message events after the batch start,
 * no join among them, and the query should not have to visit them.
 */
describe.runIf(testDatabases.includes('postgres'))('joinsAfter on a lagging consumer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres');
  });
  afterAll(async () => {
    await t.close();
  });

  it('does not read every later message event of the channel', async () => {
    const db = t.storage.db;
    await sql`insert into outbox (type, channel_id, user_id, recipient_id, payload, created_at)
      select 'message.created', 'busy', 'u', null, '{}', 0 from generate_series(1, 20000)`.execute(db);
    await sql`analyze outbox`.execute(db);
    const first = Number((await sql<{ id: string }>`select min(id) as id from outbox where channel_id = 'busy'`.execute(db)).rows[0]?.id);
    const joins = await createWebhooksStore(db, 'postgres').joinsAfter('busy', first - 1);
    expect(joins).toEqual([]);
    const plan = (
      await sql<{
        'QUERY PLAN': string;
      }>`explain (analyze, format text) select id, payload from outbox where channel_id = 'busy' and id > ${first - 1} and type = 'member.added'`.execute(db)
    ).rows
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    const removed = Number(/Rows Removed by Filter: (\d+)/.exec(plan)?.[1] ?? 0);
    expect(removed).toBeLessThan(1000);
  });
});
