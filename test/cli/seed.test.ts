import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/seed.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

describe.each(testDatabases)('parley seed --demo on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database);
  });
  afterAll(async () => {
    await t.close();
  });

  it('writes users, channels with members, and gap-free messages the API then serves', async () => {
    const seen: number[] = [];
    const result = await seedDemo(t.storage, { users: 30, channels: 4, messages: 203, onProgress: (done) => seen.push(done) });
    expect(result).toEqual({ users: 30, channels: 4, messages: 203 });
    expect(seen[seen.length - 1]).toBe(30 + 4 + 203);

    const admin = adminClient(t);
    const channels = (await admin.call('POST', '/api/v2/channels', { tags: ['demo'], options: { limit: 10 } })).json().results;
    expect(channels).toHaveLength(4);
    const counts = channels.map((r: { channel: { messageCount: number; memberCount: number } }) => r.channel.messageCount).sort();
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(203);
    expect(channels.every((r: { channel: { memberCount: number } }) => r.channel.memberCount === 20)).toBe(true);

    const rows = await t.storage.db.selectFrom('messages').select(['channel_id', 'segment', 'parent_id', 'children_number', 'id']).execute();
    expect(rows).toHaveLength(203);
    for (const { channel } of channels as { channel: { channelId: string; messageCount: number } }[]) {
      const segments = rows
        .filter((row) => row.channel_id === channel.channelId)
        .map((row) => row.segment)
        .sort((a, b) => a - b);
      expect(segments).toEqual(Array.from({ length: channel.messageCount }, (_, i) => i + 1));
    }
    // childrenNumber agrees with the comments that exist.
    for (const row of rows) {
      expect(row.children_number).toBe(rows.filter((other) => other.parent_id === row.id).length);
    }
    const users = (await admin.call('GET', '/api/v2/users?search=demo-&limit=100')).json().users;
    expect(users).toHaveLength(30);
    expect(users[0].info.displayName).toMatch(/^\w+ \w+$/);
  });
});
