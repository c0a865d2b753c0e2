import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createRedisRateLimiter } from '../../../src/shared/rate-limit.js';
import { createTokensService } from '../../../src/modules/tokens/tokens.service.js';
import { startTestApp, type TestApp, testDatabases } from '../../helpers/test-app.js';
import { trayKit } from '../../helpers/tray.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDatabases)('the tray switch on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database); // PARLEY_TRAY_ENABLED unset: off
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers every notification route 403 / 400300 while PARLEY_TRAY_ENABLED is off, and the client API still works', async () => {
    const kit = trayKit(t);
    const user = await kit.user('user');
    const calls = [
      { method: 'GET' as const, url: '/notifications/history' },
      { method: 'POST' as const, url: '/notifications/read', payload: { verb: 'like', targetId: 'x', targetGroup: '1' } },
      { method: 'POST' as const, url: '/notifications/last-read' },
    ];
    for (const call of calls) {
      for (const headers of [{ authorization: `Bearer ${user.token}` }, {}]) {
        const response = await t.app.inject({ ...call, headers });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual({
          status: 'error',
          code: 400300,
          message: 'The notification tray is not enabled on this server.',
          data: { detail: [], fields: [] },
        });
      }
    }
    // The sources keep working, and nothing is aggregated while the tray is off.
    const postId = await kit.post(user, null);
    await kit.comment(await kit.user('other'), postId);
    await kit.settle();
    expect(await t.storage.db.selectFrom('tray_records').selectAll().execute()).toEqual([]);
  });

  it('reads PARLEY_TRAY_ENABLED as docs/contract.md, Easy to get wrong, says', async () => {
    const { loadConfig } = await import('../../../src/config.js');
    expect(loadConfig({ PARLEY_TRAY_ENABLED: '1' }).trayEnabled).toBe(true);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: 'true' }).trayEnabled).toBe(true);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: '0' }).trayEnabled).toBe(false);
    expect(loadConfig({ PARLEY_TRAY_ENABLED: 'false' }).trayEnabled).toBe(false);
    expect(loadConfig({}).trayEnabled).toBe(false);
  });
});

describe.each(testDatabases)('the tray history rate limit on %s', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(database, { PARLEY_TRAY_ENABLED: '1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('needs a user token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/notifications/history' })).json().code).toBe(400100);
    const asAdmin = await t.app.inject({ method: 'GET', url: '/notifications/history', headers: { authorization: `Bearer ${t.adminToken}` } });
    expect(asAdmin.statusCode).toBe(403);
    expect(asAdmin.json().code).toBe(400300);
  });

  it('allows 5 history requests per second per user, then answers 429 / 400311 with Retry-After', async () => {
    const kit = trayKit(t);
    const [ann, bob] = [await kit.user('ann'), await kit.user('bob')];
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof ann.call>> | null = null;
    for (let i = 0; i < 7; i += 1) {
      const response = await ann.call('GET', '/notifications/history');
      statuses.push(response.statusCode);
      if (response.statusCode === 429) limited = response;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(limited?.json()).toMatchObject({ status: 'error', code: 400311 });
    expect(limited?.headers['retry-after']).toBe('1');
    // Another user has a budget of their own; the other tray routes are not limited.
    expect((await bob.call('GET', '/notifications/history')).statusCode).toBe(200);
    expect((await ann.call('POST', '/notifications/last-read')).statusCode).toBe(200);
    // No body, but labelled JSON, as HTTP clients set up for JSON send it.
    const labelled = await t.app.inject({
      method: 'POST',
      url: '/notifications/last-read',
      headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
    });
    expect(labelled.statusCode, labelled.body).toBe(200);
    expect(labelled.json()).toBe('success');
    await sleep(1050);
    expect((await ann.call('GET', '/notifications/history')).statusCode).toBe(200);
  });

  it('limits in memory with a window that starts at the first hit', async () => {
    let now = 1_000;
    const limiter = createMemoryRateLimiter(() => now);
    for (let i = 0; i < 5; i += 1) expect((await limiter.hit('k', 5, 1000)).allowed).toBe(true);
    expect(await limiter.hit('k', 5, 1000)).toEqual({ allowed: false, count: 6, resetInMs: 1000 });
    now += 999;
    expect((await limiter.hit('k', 5, 1000)).allowed).toBe(false);
    now += 1;
    expect((await limiter.hit('k', 5, 1000)).allowed).toBe(true);
  });
});

describe.runIf(REDIS_URL)('the rate limit shared through Redis', () => {
  it('counts hits from two limiters (two instances) against one budget', async () => {
    const prefix = `parley-test:${randomBytes(4).toString('hex')}:`;
    const a = createRedisRateLimiter(REDIS_URL as string, { prefix });
    const b = createRedisRateLimiter(REDIS_URL as string, { prefix });
    try {
      const results = [];
      for (let i = 0; i < 6; i += 1) results.push((await (i % 2 === 0 ? a : b).hit('user-1', 5, 1000)).allowed);
      expect(results).toEqual([true, true, true, true, true, false]);
      const denied = await a.hit('user-1', 5, 1000);
      expect(denied.resetInMs).toBeGreaterThan(0);
      expect(denied.resetInMs).toBeLessThanOrEqual(1000);
      expect((await b.hit('user-2', 5, 1000)).allowed).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps the counts of deployments on different databases apart, for the same user id', async () => {
    const first = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1', REDIS_URL: REDIS_URL as string });
    const second = await startTestApp('sqlite', { PARLEY_TRAY_ENABLED: '1', REDIS_URL: REDIS_URL as string });
    try {
      // Integrators choose user ids, so two deployments both have an "alice".
      const userId = `alice-${randomBytes(4).toString('hex')}`;
      const historyStatuses = async (t: TestApp, times: number) => {
        await trayKit(t).admin.createUser(userId);
        const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
        const statuses: number[] = [];
        for (let i = 0; i < times; i += 1)
          statuses.push((await t.app.inject({ method: 'GET', url: '/notifications/history', headers: { authorization: `Bearer ${token}` } })).statusCode);
        return statuses;
      };
      expect(await historyStatuses(first, 6)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(await historyStatuses(second, 5)).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it.runIf(testDatabases.includes('postgres'))('shares the history limit across two server instances', async () => {
    const t = await startTestApp('postgres', { PARLEY_TRAY_ENABLED: '1', REDIS_URL: REDIS_URL as string });
    try {
      const peer = await t.startPeer();
      const userId = t.uniqueId('shared');
      await trayKit(t).admin.createUser(userId);
      const { token } = await createTokensService({ db: t.storage.db, clock: t.clock }).issue({ kind: 'user', userId, expiresInMs: 3_600_000 });
      const headers = { authorization: `Bearer ${token}` };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        const app = i % 2 === 0 ? t.app : peer.app;
        statuses.push((await app.inject({ method: 'GET', url: '/notifications/history', headers })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await t.close();
    }
  });
});
