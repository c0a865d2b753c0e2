import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../helpers/test-app.js';

/**
 * Member reactions and message flags take a shared lock on the channel row before the message row.
 * Everything else that touches the same rows at once (comments bumping the parent's
 * children_number under the channel lock, deletes, admin reactions that lock only the message, a ban)
 * must not form a cycle with it on PostgreSQL: no request may fail with a 500 (deadlock detected).
 */
describe.each(testDatabases)('shared channel lock of reactions against other writers on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;
  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('no request fails with a deadlock', async () => {
    const failures: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const [a, b, c] = [t.uniqueId('a'), t.uniqueId('b'), t.uniqueId('c')];
      for (const id of [a, b, c]) await admin.createUser(id);
      const tokens = createTokensService({ db: t.storage.db, clock: t.clock });
      const tokenOf = async (userId: string) => (await tokens.issue({ kind: 'user', userId, expiresInMs: 3_600_000 })).token;
      const [ta, tb] = [await tokenOf(a), await tokenOf(b)];
      const channelId = t.uniqueId('ch');
      await admin.createChannel(channelId, { userIds: [a, b, c] });
      const client = (token: string, method: 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
        t.app.inject({ method, url: `/client/v1${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
      const post = async (token: string) => (await client(token, 'POST', `/channels/${channelId}/messages`, { type: 'text', data: { text: 'hi' } })).json();
      const target = (await post(tb)) as Record<string, unknown>;
      const messageId =
        ((target.message ?? (target as { data?: { message?: unknown } }).data?.message) as { messageId?: string; id?: string } | undefined)?.messageId ??
        (JSON.stringify(target).match(/"messageId":"([^"]+)"/) ?? [])[1];
      expect(messageId).toBeTruthy();
      const doomed = await Promise.all(
        Array.from({ length: 6 }, async () => (JSON.stringify(await post(tb)).match(/"messageId":"([^"]+)"/) ?? [])[1] as string),
      );
      const ops: Array<Promise<{ statusCode: number; body: string }>> = [];
      for (let n = 0; n < 12; n += 1) {
        ops.push(client(ta, 'POST', `/messages/${messageId}/reactions`, { reactionName: `r${n}` }));
        ops.push(client(tb, 'POST', `/channels/${channelId}/messages`, { type: 'text', data: { text: `c${n}` }, parentId: messageId }));
        ops.push(admin.call('POST', '/api/v2/reactions', { referenceId: messageId, referenceType: 'message', reactionName: `adm${n}` }));
        if (n < doomed.length) ops.push(client(tb, 'DELETE', `/messages/${doomed[n]}`));
        if (n < doomed.length) ops.push(admin.call('DELETE', `/api/v2/message/${doomed[n]}`));
        if (n === 2) ops.push(client(ta, 'POST', `/messages/${messageId}/flag`));
        if (n === 8) ops.push(admin.call('POST', `/api/v2/channel/${channelId}/users/ban`, { userIds: [c] }));
      }
      for (const response of await Promise.all(ops)) if (response.statusCode >= 500) failures.push(`${response.statusCode} ${response.body.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
