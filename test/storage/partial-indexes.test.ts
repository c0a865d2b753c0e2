import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * Two indexes are partial (migration 0011: a message's file id, an event's recipient, null in almost
 * every row), so a message create writes no null key into either. The lookups that need them
 * must still find them: SQLite uses a partial index only when it can prove the query implies its
 * condition. (PostgreSQL proves the same for `=` and `in`; its plans depend on table statistics, so
 * they are not asserted here.)
 */
describe('partial indexes (SQLite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  const planOf = (query: string, ...values: Array<string | number>): string =>
    ((t.storage.sqlite?.prepare(`explain query plan ${query}`).all(...values) ?? []) as Array<{ detail: string }>).map((row) => row.detail).join('\n');

  it('the orphan-blob sweep finds file ids through messages_file_id', () => {
    // messages.store.ts heldFileIds
    expect(planOf('select "file_id" from "messages" where "file_id" in (?, ?)', 'a', 'b')).toContain('INDEX messages_file_id (file_id=?)');
  });

  it("a reconnecting user's replay finds events addressed to them through outbox_recipient", () => {
    // realtime.store.ts eventsFor
    const plan = planOf(
      'select * from "outbox" where "id" > ? and ("recipient_id" = ? or "channel_id" in (?, ?)) order by "id" limit ?',
      0,
      'u1',
      'c1',
      'c2',
      100,
    );
    expect(plan).toContain('INDEX outbox_recipient (recipient_id=? AND id>?)');
    expect(plan).toContain('INDEX outbox_channel (channel_id=? AND id>?)');
  });

  it('the indexes are partial: a row with no file id or recipient is not in them', () => {
    const sqlOf = (name: string) =>
      (t.storage.sqlite?.prepare("select sql from sqlite_master where type = 'index' and name = ?").get(name) as { sql: string } | undefined)?.sql;
    expect(sqlOf('messages_file_id')).toMatch(/where file_id is not null$/i);
    expect(sqlOf('outbox_recipient')).toMatch(/where recipient_id is not null$/i);
  });
});
