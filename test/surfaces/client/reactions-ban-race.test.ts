import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

/**
 * Reactions fired together with a ban of their author: as for message sends (moderation.test.ts),
 * no reaction of a banned user should be committed after the ban's member.removed.
 */
describe.each(testDatabases)('reactions racing a ban on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('commits no reaction after the ban of its author', async () => {
    const REACTIONS = 30;
    const late: Array<{ turns: number; after: number }> = [];
    for (let turns = 0; turns <= 3; turns += 1) {
      const userId = t.uniqueId('racer');
      await admin.createUser(userId);
      const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
      const channelId = t.uniqueId('race');
      await admin.createChannel(channelId, { userIds: [userId] });
      const messageId = (await admin.call('POST', '/api/v2/message', { channelId, type: 'text', data: { text: 'react to me' } })).json().data.messages[0]
        .messageId;
      const react = (n: number) =>
        t.app.inject({
          method: 'POST',
          url: `/client/v1/messages/${messageId}/reactions`,
          headers: { authorization: `Bearer ${token}` },
          payload: { reactionName: `r${n}` },
        });
      const first = Array.from({ length: REACTIONS / 2 }, (_, n) => react(n));
      for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      const ban = admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [userId] });
      const rest = Array.from({ length: REACTIONS / 2 }, (_, n) => react(REACTIONS / 2 + n));
      const [banned] = await Promise.all([ban, ...first, ...rest]);
      expect(banned?.statusCode).toBe(200);
      const events = await t.storage.db.selectFrom('outbox').select(['id', 'type']).where('channel_id', '=', channelId).orderBy('id').execute();
      const removedAt = events.find((event) => event.type === 'member.removed')?.id as number;
      const after = events.filter((event) => event.type === 'reaction.added' && event.id > removedAt).length;
      if (after > 0) late.push({ turns, after });
    }
    expect(late).toEqual([]);
  }, 60_000);
});
