import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { adminClient } from '../../helpers/admin.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A user's flagCount stays the number of flags when flags race a clear, on PostgreSQL too. */
describe.each(testDatabases)('flag counters on %s', (database) => {
  let t: TestApp;
  let admin: ReturnType<typeof adminClient>;

  beforeAll(async () => {
    t = await startTestApp(database);
    admin = adminClient(t);
  });
  afterAll(async () => {
    await t.close();
  });

  async function userWithToken(prefix: string) {
    const userId = t.uniqueId(prefix);
    await admin.createUser(userId, { displayName: prefix });
    const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
    const as = (method: Method, url: string, payload?: Record<string, unknown>) =>
      t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    return { userId, token, as };
  }

  it('a user flagCount equals the flags kept when flags race a clear', async () => {
    const target = await userWithToken('target');
    const flaggers = [];
    for (let i = 0; i < 20; i++) flaggers.push(await userWithToken(`f${i}`));
    const drift: Array<{ round: number; flagCount: number; rows: number }> = [];
    for (let round = 0; round < 15; round++) {
      await admin.call('DELETE', `/api/v2/users/${target.userId}/flags`);
      const requests: Promise<unknown>[] = flaggers.map((f) => f.as('POST', `/client/v1/users/${target.userId}/flag`));
      requests.splice(10, 0, admin.call('DELETE', `/api/v2/users/${target.userId}/flags`));
      const answers = (await Promise.all(requests)) as Array<{ statusCode: number }>;
      expect(answers.every((a) => a.statusCode === 200)).toBe(true);
      const rows = Number(
        (
          await t.storage.db
            .selectFrom('user_flags')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('target_user_id', '=', target.userId)
            .executeTakeFirstOrThrow()
        ).n,
      );
      const user = (await admin.call('GET', `/api/v2/users?search=${target.userId}`)).json().users[0].info;
      if (user.flagCount !== rows) drift.push({ round, flagCount: user.flagCount, rows });
    }
    expect(drift).toEqual([]);
  }, 60_000);
});
